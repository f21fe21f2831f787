import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// One kind of bad request and what the answer must say about it.
struct BadRequest: CustomStringConvertible, Sendable {
    let name: String
    let bytes: [UInt8]
    let code: String
    let field: String?
    var description: String { name }

    init(_ name: String, _ text: String, _ code: String, _ field: String?) {
        self.init(name, Array(text.utf8), code, field)
    }

    init(_ name: String, _ bytes: [UInt8], _ code: String, _ field: String?) {
        self.name = name
        self.bytes = bytes
        self.code = code
        self.field = field
    }
}

let badRequests: [BadRequest] = {
    var invalidUTF8 = Array(#"{"id":1,"op":"enqueue","activity":{"title":"caf"#.utf8)
    invalidUTF8 += [0xC3, 0x28] + Array(#""}}"#.utf8)
    let nulInString = Array(#"{"id":1,"op":"enqueue","activity":{"title":"a"#.utf8) + [0] + Array(#"b"}}"#.utf8)
    let bigTitle = String(repeating: "x", count: 100_000)
    let longLine = String(repeating: "y", count: 70_000)
    let sixtyKTitle = String(repeating: "z", count: 60_000)
    let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
    return [
        BadRequest("malformed JSON", #"{"id":1,"op":"enqueue""#, "badJSON", nil),
        BadRequest("not an object", #"[1,2,3]"#, "wrongType", nil),
        BadRequest("trailing garbage", #"{"id":1,"op":"status"} extra"#, "badJSON", nil),
        BadRequest("operation missing", #"{"id":1}"#, "missingField", "op"),
        BadRequest("operation of the wrong type", #"{"id":1,"op":7}"#, "wrongType", "op"),
        BadRequest("unknown operation", #"{"id":1,"op":"launch"}"#, "unknownOperation", "op"),
        BadRequest("unsupported version", #"{"v":9,"id":1,"op":"status"}"#, "unsupportedVersion", "v"),
        BadRequest("request id of the wrong type", #"{"id":[1],"op":"status"}"#, "wrongType", "id"),
        BadRequest("activity missing", #"{"id":1,"op":"enqueue"}"#, "missingField", "activity"),
        BadRequest("activity of the wrong type", #"{"id":1,"op":"enqueue","activity":"hi"}"#, "wrongType", "activity"),
        BadRequest("empty title", #"{"id":1,"op":"enqueue","activity":{"title":""}}"#, "invalid", "activity.title"),
        BadRequest("blank title", #"{"id":1,"op":"enqueue","activity":{"title":"   "}}"#, "invalid", "activity.title"),
        BadRequest("title of the wrong type", #"{"id":1,"op":"enqueue","activity":{"title":42}}"#, "wrongType", "activity.title"),
        BadRequest("60 KB title", #"{"id":1,"op":"enqueue","activity":{"title":"\#(sixtyKTitle)"}}"#, "invalid", "activity.title"),
        BadRequest("100 KB title (a line over 64 KiB)", #"{"id":1,"op":"enqueue","activity":{"title":"\#(bigTitle)"}}"#, "lineTooLong", nil),
        BadRequest("a line over 64 KiB of garbage", longLine, "lineTooLong", nil),
        BadRequest("invalid UTF-8", invalidUTF8, "badJSON", nil),
        BadRequest("NUL byte in a string", nulInString, "badJSON", nil),
        BadRequest("escaped NUL", #"{"id":1,"op":"enqueue","activity":{"title":"a\u0000b"}}"#, "badJSON", nil),
        BadRequest("lone surrogate", #"{"id":1,"op":"enqueue","activity":{"title":"\ud800"}}"#, "badJSON", nil),
        BadRequest("unknown priority", #"{"id":1,"op":"enqueue","activity":{"title":"x","priority":"urgent"}}"#, "invalid", "activity.priority"),
        BadRequest("negative dwell", #"{"id":1,"op":"enqueue","activity":{"title":"x","dwell":-3}}"#, "invalid", "activity.dwell"),
        BadRequest("zero dwell", #"{"id":1,"op":"enqueue","activity":{"title":"x","dwell":0}}"#, "invalid", "activity.dwell"),
        BadRequest("absurd dwell", #"{"id":1,"op":"enqueue","activity":{"title":"x","dwell":1e9}}"#, "invalid", "activity.dwell"),
        BadRequest("dwell as a string", #"{"id":1,"op":"enqueue","activity":{"title":"x","dwell":"2"}}"#, "wrongType", "activity.dwell"),
        BadRequest("unknown tint", #"{"id":1,"op":"enqueue","activity":{"title":"x","tint":"chartreuse"}}"#, "invalid", "activity.tint"),
        BadRequest("progress out of range", #"{"id":1,"op":"enqueue","activity":{"title":"x","progress":1.5}}"#, "invalid", "activity.progress"),
        BadRequest("timeout without blocker", #"{"id":1,"op":"enqueue","activity":{"title":"x","timeout":5}}"#, "invalid", "activity.timeout"),
        BadRequest("unknown activity field", #"{"id":1,"op":"enqueue","activity":{"title":"x","colour":"red"}}"#, "invalid", "activity.colour"),
        BadRequest("malformed activity id", #"{"id":1,"op":"enqueue","activity":{"title":"x","id":"123"}}"#, "invalid", "activity.id"),
        BadRequest("unknown module", #"{"id":1,"op":"enqueue","module":"nope","activity":{"title":"x"}}"#, "unknownModule", "module"),
        BadRequest("cancel of a malformed id", #"{"id":1,"op":"cancel","activity":"not-a-uuid"}"#, "invalid", "activity"),
        BadRequest("cancel of an unknown id", #"{"id":1,"op":"cancel","activity":"11111111-2222-4333-8444-555555555555"}"#, "notFound", "activity"),
        BadRequest("duplicate key", #"{"id":1,"op":"status","op":"list"}"#, "badJSON", nil),
        BadRequest("nested too deep", #"{"id":1,"op":"status","x":\#(deep)}"#, "badJSON", nil),
        BadRequest("home with unknown content", #"{"id":1,"op":"home","content":"video"}"#, "invalid", "content"),
        BadRequest("focus without a module", #"{"id":1,"op":"focus"}"#, "missingField", "module"),
        BadRequest("focus on an unknown module", #"{"id":1,"op":"focus","module":"zzz"}"#, "unknownModule", "module"),
        // -2^63 is a whole number a Double holds exactly: its size is checked without negating it.
        BadRequest("glance columns of -2^63", #"{"id":1,"op":"glance","glance":{"columns":-9223372036854775808,"rows":2,"lines":["a","b"]}}"#,
                   "invalid", "glance.columns"),
        BadRequest("glance row of -2^63 in a bar",
                   #"{"id":1,"op":"glance","glance":{"columns":4,"rows":2,"lines":["a","b"],"bars":[{"row":-9223372036854775808,"column":0,"length":1,"direction":"h"}]}}"#,
                   "invalid", "glance.bars[0].row"),
    ]
}()

@Suite("C3 bad input against a running nookd", .serialized, .ownThreads)
struct BadInputTests {
    @Test func c3_everyKindOfBadRequestGetsAStructuredErrorAndLosesNothing() throws {
        #expect(badRequests.count >= 25)
        let daemon = try DaemonProcess()
        // Something queued that must survive every bad request: suspended, so it stays pending.
        try daemon.request(.suspend(module: nil))
        let kept = [NookActivity(title: "Water leak", presentation: .blocker(timeout: nil)), NookActivity(title: "Backup complete")]
        for activity in kept { try daemon.request(.enqueue(activity, module: nil, wait: false)) }

        let client = try daemon.client()
        for bad in badRequests {
            try client.sendRaw(bad.bytes + [0x0A])
            let line = try #require(try client.readLine(), "\(bad.name): no answer")
            let answer = try JSONValue.parse(line)
            #expect(answer["ok"] == .bool(false), "\(bad.name)")
            #expect(answer["error"]?["code"] == .string(bad.code), "\(bad.name): \(answer.serialized.prefix(300))")
            #expect(answer["error"]?["field"] == bad.field.map { .string($0) }, "\(bad.name): \(answer.serialized.prefix(300))")
            #expect(answer["error"]?["message"]?.serialized.count ?? 0 > 5, "\(bad.name): a human message")
            // The same connection keeps serving.
            try client.send(Request(id: .string("after"), operation: .status).encoded())
            let status = try JSONValue.parse(try #require(try client.readLine()))
            #expect(status["ok"] == .bool(true) && status["id"] == .string("after"), "\(bad.name): connection still serves")
        }
        let list = try daemon.request(.list(module: nil))
        let pendingTitles = list["modules"]?.items.first?["pending"]?.items.compactMap { $0["title"]?.text }
        #expect(pendingTitles == kept.map(\.title), "everything queued is still there")
        #expect(daemon.process.isRunning)
        #expect(daemon.stop().status == 0)
    }

    @Test func c3_aClientThatDisconnectsMidLineDoesNotDisturbTheDaemon() throws {
        let daemon = try DaemonProcess()
        for _ in 0..<20 {
            let client = try daemon.client()
            try client.sendRaw(Array(#"{"id":1,"op":"enqueue","activity":{"title":"half"#.utf8))
        }
        let answer = try daemon.request(.status)
        #expect(answer["modules"]?.items.first?["pending"] == .number(0), "no half line became an activity")
        try eventually("the abandoned connections to close") {
            (try daemon.request(.status))["connections"] == .number(1)
        }
        #expect(daemon.stop().status == 0)
    }

    @Test func c3_aClientThatNeverReadsIsDroppedAndOthersAreStillServed() throws {
        // nookd holds its requests back once 4 MiB of answers wait, and drops it once its
        // socket has taken none of them for daemon.unread_timeout.
        let scratch = Scratch()
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", scratch.file("nook.toml", "[daemon]\nunread_timeout = 2\n")])
        let greedy = try daemon.client()
        // About 40 MB of answers it will never read: far past the per-client backlog limit.
        let status = Array((Request(id: .number(1), operation: .status).encoded() + "\n").utf8)
        var batch: [UInt8] = []
        for _ in 0..<200 { batch += status }
        let start = Date()
        var sendFailed = false
        // A bound for a failure only (the loop ends when nookd drops the client): under
        // AddressSanitizer on a loaded machine nookd answers slowly enough to need a minute.
        while Date().timeIntervalSince(start) < TestBounds.seconds(90) {
            do { try greedy.sendRaw(batch) } catch { sendFailed = true; break }
            if (try? daemon.request(.status)) == nil { break }
        }
        #expect(sendFailed, "nookd dropped the client that never reads")
        // Each status above was its own connection, and nookd counts one as gone when it has
        // seen the hang-up, a moment after the client closed: wait for only this one to be left.
        try eventually("the dropped client and the status connections to be gone") {
            (try daemon.request(.status))["connections"] == .number(1)
        }
        #expect(daemon.log.contains("nookd ready"))
        #expect(daemon.stop().status == 0)
    }
}
