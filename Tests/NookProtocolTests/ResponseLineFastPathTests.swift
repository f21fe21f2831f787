import NookActivities
@testable import NookProtocol
import Testing

/// nook-mqtt reads the start of nookd's lines instead of parsing them whole; what it
/// reads must be what a full decode says, and anything else must fall back to the decode.
@Suite("C1 reading answers and events without parsing them whole")
struct ResponseLineFastPathTests {
    @Test func c1_anEventLinesObjectIsCutOutExactlyAsDecodeReadsIt() throws {
        let event = EventMessage(NookActivityEvent(activity: NookActivity(title: "Tür \"offen\" }"), kind: .enqueued, at: .origin, module: "default")).json
        for id in [RequestID.string("watch"), .number(3)] {
            let line = Array(ResponseLine.event(id: id, event: event).encoded().utf8)
            let slice = try #require(ResponseLine.eventObject(in: line, prefix: ResponseLine.eventLinePrefix(id: id)))
            guard case .event(_, let decoded) = try ResponseLine.decode(line) else { Issue.record("not an event"); return }
            #expect(try JSONValue.parse(slice) == decoded)
            #expect(Array(slice) == decoded.serializedBytes)
        }
        let status = Array(ResponseLine.event(id: .string("watch"), event: StatusChangeMessage(.engaged).json).encoded().utf8)
        #expect(ResponseLine.eventObject(in: status, prefix: ResponseLine.eventLinePrefix(id: .string("watch"))).map { Array($0) }
                == StatusChangeMessage(.engaged).json.serializedBytes)
        // Another stream's id, an answer, a line cut short: not taken.
        let prefix = ResponseLine.eventLinePrefix(id: .string("watch"))
        #expect(ResponseLine.eventObject(in: Array(ResponseLine.event(id: .string("other"), event: event).encoded().utf8), prefix: prefix) == nil)
        #expect(ResponseLine.eventObject(in: Array(ResponseLine.success(id: .string("watch"), result: .null).encoded().utf8), prefix: prefix) == nil)
        #expect(ResponseLine.eventObject(in: Array(prefix), prefix: prefix) == nil)
        #expect(ResponseLine.eventObject(in: Array(ResponseLine.event(id: .string("watch"), event: .string("x")).encoded().utf8), prefix: prefix) == nil)
    }

    @Test func c1_anAcceptedAnswersIdIsReadAndEverythingElseIsLeftToDecode() throws {
        for number in [1.0, 42, 123_456_789] {
            let line = Array(ResponseLine.success(id: .number(number), result: .object([("id", .string("x"))])).encoded().utf8)
            #expect(ResponseLine.acceptedNumberID(in: line) == number)
        }
        let refused = Array(ResponseLine.failure(id: .number(5), error: ProtocolError(.invalid, field: "activity.title", "empty")).encoded().utf8)
        #expect(ResponseLine.acceptedNumberID(in: refused) == nil)
        #expect(ResponseLine.acceptedNumberID(in: Array(ResponseLine.success(id: .string("state"), result: .null).encoded().utf8)) == nil)
        #expect(ResponseLine.acceptedNumberID(in: Array(ResponseLine.success(id: .number(1.5), result: .null).encoded().utf8)) == nil)
        #expect(ResponseLine.acceptedNumberID(in: Array(ResponseLine.success(id: nil, result: .null).encoded().utf8)) == nil)
        #expect(ResponseLine.acceptedNumberID(in: Array(#"{"v":1,"id":7"#.utf8)) == nil)
    }
}
