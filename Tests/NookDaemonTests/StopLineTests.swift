import Foundation
import NookActivities
import NookProtocol
import NookTestTraits
import Testing

/// C1, N2: what a stopping nookd tells the clients it served: which of their requests it began,
/// so that a client can tell a request never carried out from one whose outcome is unknown.
@Suite("C1 N2 nookd's last line at a stop", .serialized, .ownThreads)
struct StopLineTests {
    @Test func c1_n2_aStoppingNookdNamesTheLastRequestItBeganAndCarriesOutNoneAfterIt() throws {
        let scratch = Scratch()
        let journal = ["--journal", scratch.path + "/journal"]
        var daemon = try DaemonProcess(scratch: scratch, arguments: journal)
        let client = try daemon.client(timeout: .seconds(60))
        // The watch holds the connection's handler until the connection ends: the request
        // after it is read, never begun.
        let requests = [Request(id: .string("first"), operation: .enqueue(NookActivity(title: "begun before the stop"), module: nil, wait: false)),
                        Request(id: .string("w"), operation: .watch),
                        Request(id: .string("late"), operation: .enqueue(NookActivity(title: "never begun"), module: nil, wait: false))]
        try client.sendRaw(Array(requests.map { $0.encoded() + "\n" }.joined().utf8))
        var lines: [JSONValue] = []
        // Until the watch is acknowledged: both requests before it have begun.
        while !lines.contains(where: { $0["id"] == .string("w") }) {
            guard let line = try client.readLine() else { Issue.record("nookd closed the connection early: \(lines)"); return }
            lines.append(try JSONValue.parse(line))
        }
        #expect(daemon.stop().status == 0, "\(daemon.log.suffix(2000))")
        // Everything it wrote, to the end (a reset after the last line counts as the end).
        while let line = try? client.readLine() { lines.append(try JSONValue.parse(line)) }
        #expect(!lines.contains { $0["id"] == .string("late") }, "the request after the watch was answered: \(lines)")
        guard let last = lines.last else { Issue.record("no lines"); return }
        #expect(last["id"] == nil && last["ok"] == .bool(false) && last["error"]?["code"] == .string("unavailable"),
                "nookd's last line is not an id-less unavailable error: \(last.serialized)")
        #expect(last["started_through"] == .string("w"), "the last line does not name the watch as the last request begun: \(last.serialized)")

        // Started again on the same journal: the request after the watch was never carried out.
        daemon = try DaemonProcess(scratch: scratch, arguments: journal)
        // (Live again from the journal, or ended into the history by the stop.)
        let known = try daemon.request(.history(HistoryQuery(limit: 50))).serialized + (try daemon.request(.list(module: nil))).serialized
        #expect(known.contains("begun before the stop") && !known.contains("never begun"), "\(known)")
        _ = daemon.stop()
    }
}
