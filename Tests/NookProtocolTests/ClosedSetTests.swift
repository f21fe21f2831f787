import NookActivities
import NookProtocol
import Testing

/// Fields whose values are a closed set are read as their Swift enums: written as the same
/// words as before, and a word outside the set is an error naming the field, except in what a
/// client only shows, where a word a newer nookd added reads as absent (or by its name).
@Suite("C1 closed sets on the wire")
struct ClosedSetTests {
    static let id = NookActivityID()

    func parsed(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test func c1_alreadyEndingIsAnEndReasonWrittenByItsName() throws {
        for reason in NookEndReason.allCases {
            let cancel = CancelAnswer(cancelled: Self.id, alreadyEnding: reason)
            #expect(cancel.json.serialized == #"{"cancelled":"\#(Self.id)","alreadyEnding":"\#(reason.rawValue)"}"#)
            #expect(try CancelAnswer(json: cancel.json) == cancel)
            let dismiss = DismissAnswer(dismissed: Self.id, alreadyEnding: reason)
            #expect(dismiss.json.serialized == #"{"dismissed":"\#(Self.id)","alreadyEnding":"\#(reason.rawValue)"}"#)
            #expect(try DismissAnswer(json: dismiss.json) == dismiss)
        }
        #expect(CancelAnswer(cancelled: Self.id).json.serialized == #"{"cancelled":"\#(Self.id)"}"#)
        // A reason a newer nookd added: the cancel was carried out, and the answer says so.
        #expect(try CancelAnswer(json: try parsed(#"{"cancelled":"\#(Self.id)","alreadyEnding":"later"}"#)) == CancelAnswer(cancelled: Self.id))
        #expect(try DismissAnswer(json: try parsed(#"{"dismissed":"\#(Self.id)","alreadyEnding":"later"}"#)) == DismissAnswer(dismissed: Self.id))
    }

    @Test func q13_theEventNameIsTheEventsKindWrittenByItsName() throws {
        let card = NookActivity(title: "Doorbell")
        let kinds: [NookActivityEvent.Kind] = [.enqueued, .animateIn, .presented, .animateOut, .hidden(.completed), .rejected(.expired),
                                               .requeued, .updated(previous: card), .invoked]
        #expect(kinds.map(\.eventName) == NookActivityEvent.Name.allCases)
        for kind in kinds {
            let event = EventMessage(NookActivityEvent(activity: card, kind: kind, at: .origin, module: "door"))
            #expect(event.json["event"] == .string(kind.name))
            #expect(try EventMessage(json: event.json) == event)
        }
        // A kind a newer nookd added: read, by its name, with no kind and no ending.
        let unknown = try EventMessage(json: try parsed(#"{"id":"\#(Self.id)","event":"exploded","at":1,"title":"x"}"#))
        #expect(unknown.event == nil && unknown.name == "exploded" && unknown.ending == nil)
        #expect(unknown.json["event"] == .string("exploded"))
        #expect(throws: ProtocolError.self) { try EventMessage(json: try parsed(#"{"id":"\#(Self.id)","at":1,"title":"x"}"#)) }
    }

    @Test func u5_z1_q12_scopeQuietAndPhaseAreReadAsTheirEnums() throws {
        #expect(HistoryClearAnswer(cleared: 2, scope: .all).json.serialized == #"{"cleared":2,"scope":"all"}"#)
        #expect(throws: ProtocolError.self) { try HistoryClearAnswer(json: try parsed(#"{"cleared":2,"scope":"some"}"#)) }
        let quiet = QuietAnswer(quiet: true, source: .manual, until: nil, minimum: .normal)
        #expect(quiet.json.serialized == #"{"quiet":true,"source":"manual","minimum":"normal"}"#)
        #expect(try QuietAnswer(json: quiet.json) == quiet)
        #expect(throws: ProtocolError.self) { try QuietAnswer(json: try parsed(#"{"quiet":true,"minimum":"urgent"}"#)) }
        let module = StatusAnswer.Module(name: "default", current: NookActivity(title: "x"), phase: .animateOut, pending: 0, capacity: 4,
                                         suspended: false, displayAvailable: true, parked: nil, blockedBy: nil)
        let status = StatusAnswer(foreground: "default", display: StatusAnswer.Display(backend: "mock", mode: "1280x400", rotation: 0, theme: "dark",
                                                                                      refreshHz: 60, slideFrameIntervalMs: nil, flips: nil),
                                  home: "clock", engaged: false, inputs: [], gpio: nil, modules: [module], connections: 1, presence: nil, brightness: nil)
        #expect(status.json.serialized.contains(#""phase":"animateOut""#))
        #expect(try StatusAnswer(json: status.json).modules.first?.phase == .animateOut)
    }

    /// What a client only shows may gain words in a newer nookd: an older nookctl still reads the
    /// rest of a status or quiet answer, with that value absent.
    @Test func c1_aPhaseOrQuietSourceANewerNookdAddedReadsAsAbsentNotAsABrokenAnswer() throws {
        let module = StatusAnswer.Module(name: "default", current: NookActivity(title: "x"), phase: .animateOut, pending: 2, capacity: 4,
                                         suspended: false, displayAvailable: true, parked: nil, blockedBy: nil)
        let sent = StatusAnswer(foreground: "default", display: StatusAnswer.Display(backend: "mock", mode: "1280x400", rotation: 0, theme: "dark",
                                                                                    refreshHz: 60, slideFrameIntervalMs: nil, flips: nil),
                                home: "clock", engaged: false, inputs: [], gpio: nil, modules: [module], connections: 1, presence: nil, brightness: nil)
        let line = sent.json.serialized.replacing(#""phase":"animateOut""#, with: #""phase":"hovering""#)
        #expect(line.contains("hovering"))
        let status = try StatusAnswer(json: try parsed(line))
        #expect(status.modules.first?.phase == nil)
        #expect(status.modules.first?.pending == 2)
        let quiet = try QuietAnswer(json: try parsed(#"{"quiet":true,"source":"calendar","minimum":"normal"}"#))
        #expect(quiet.quiet && quiet.source == nil)
    }
}
