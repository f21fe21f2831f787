import Foundation
import NookActivities
import NookProtocol
import NookTestTraits
import Testing

/// nookd hands consecutive plain enqueues of one read to the queue in one call; a
/// pipelining client must see exactly what it saw when each line was handled on its own.
@Suite("C1 C3 pipelined requests in one read", .serialized, .ownThreads)
struct PipelinedBatchTests {
    @Test func c1_c3_aPipelinedMixIsAnsweredInOrderWithEachLinesOwnChecks() throws {
        let daemon = try DaemonProcess()
        let client = try daemon.client()
        let first = NookActivity(coalescingKey: "k", title: "First", dwell: .seconds(30))
        let second = NookActivity(title: "Second", dwell: .seconds(30))
        let replacement = NookActivity(coalescingKey: "k", title: "Replacement", dwell: .seconds(30))
        func enqueue(_ id: Int, _ activity: NookActivity, module: String? = nil) -> String {
            Request(id: .number(Double(id)), operation: .enqueue(activity, module: module, wait: false)).encoded()
        }
        let lines = [
            enqueue(0, first),
            enqueue(1, second),
            enqueue(2, first),  // the same id again: refused, the first one keeps it
            enqueue(3, NookActivity(title: "Elsewhere"), module: "nope"),
            #"{"v":1,"id":4,"op":"enqueue","activity":{"title":""}}"#,
            Request(id: .number(5), operation: .status).encoded(),
            #"{"v":1,"id":6,"op":"enqueue","activity":{"title":"Bad icon","icon":"/dev/zero"}}"#,
            enqueue(7, replacement),
            "not json",
            enqueue(9, NookActivity(title: "Last", dwell: .seconds(30))),
        ]
        try client.sendRaw(Array((lines.joined(separator: "\n") + "\n").utf8))
        var answers: [(id: RequestID?, ok: Bool, code: String?, field: String?, message: String)] = []
        for _ in 0..<lines.count {
            let line = try #require(try client.readLine())
            switch try ResponseLine.decode(line) {
            case .success(let id, _): answers.append((id, true, nil, nil, ""))
            case .failure(let id, let error): answers.append((id, false, error.code.rawValue, error.field, error.message))
            case .event: Issue.record("an event nobody asked for")
            }
        }
        #expect(answers.map(\.id) == [0, 1, 2, 3, 4, 5, 6, 7, nil, 9].map { $0.map { RequestID.number(Double($0)) } })
        #expect(answers.map(\.ok) == [true, true, false, false, false, true, false, true, false, true])
        #expect(answers[2].field == "activity.id" && answers[2].message.contains("already queued or on screen in module"), "\(answers[2])")
        #expect(answers[3].code == "unknownModule")
        #expect(answers[4].field == "activity.title", "\(answers[4])")
        #expect(answers[6].field == "activity.icon", "\(answers[6])")
        #expect(answers[8].code == "badJSON")
        // What is queued is what one-by-one handling would have queued: the replacement took
        // the first's place in the pending list, or followed it if the first was on the glass.
        let list = try daemon.request(.list(module: nil))
        let module = try #require(list["modules"]?.items.first)
        let titles = ([module["current"]].compactMap { $0 } + (module["pending"]?.items ?? [])).compactMap { $0["title"]?.text }
        #expect(titles.contains("Second") && titles.contains("Replacement") && titles.contains("Last"), "\(titles)")
        #expect(!titles.contains("Elsewhere") && !titles.contains("Bad icon"))
        #expect(daemon.stop().status == 0)
    }

    /// A read holding more enqueues than go to the queue in one call (64): the runs it is cut
    /// into change nothing a client sees. An id sent again within a run, right at the first cut
    /// (line 64 repeats line 3) and later, a `list` between enqueues and an enqueue for an
    /// unknown module are each answered as when every line is handled on its own, in order, and
    /// every other card is queued, in order, with the id it was sent with.
    @Test func c1_aReadOfMoreEnqueuesThanOneQueueCallTakesIsAnsweredAsLineByLine() throws {
        let daemon = try DaemonProcess()
        let client = try daemon.client()
        let cards = (0..<200).map { NookActivity(title: "Card \($0)", dwell: .seconds(30)) }
        var sent = cards
        sent[10] = cards[5]    // the same id again within the first run
        sent[64] = cards[3]    // the first line after the first cut repeats one before it
        sent[100] = cards[70]  // and one 30 lines later
        let refused: Set<Int> = [10, 64, 100]
        let (listLine, otherModule) = (128, 192)
        let lines = sent.enumerated().map { index, card in
            switch index {
            case listLine: Request(id: .number(Double(index)), operation: .list(module: nil)).encoded()
            case otherModule: Request(id: .number(Double(index)), operation: .enqueue(card, module: "nope", wait: false)).encoded()
            default: Request(id: .number(Double(index)), operation: .enqueue(card, module: nil, wait: false)).encoded()
            }
        }
        try client.sendRaw(Array((lines.joined(separator: "\n") + "\n").utf8))
        for index in sent.indices {
            let line = try #require(try client.readLine())
            switch try ResponseLine.decode(line) {
            case .success(let id, let result):
                #expect(id == .number(Double(index)) && !refused.contains(index) && index != otherModule, "line \(index): \(line)")
                if index == listLine {
                    // What was queued before it, and nothing after: the runs before it went first.
                    let pending = result["modules"]?.items.first?["pending"]?.items.count ?? -1
                    let current = result["modules"]?.items.first?["current"] == .null ? 0 : 1
                    #expect(pending + current == listLine - refused.count, "\(line)")
                } else {
                    #expect(result["id"]?.text == sent[index].id.description)
                }
            case .failure(let id, let error):
                #expect(id == .number(Double(index)), "line \(index): \(error)")
                if index == otherModule {
                    #expect(error.code == .unknownModule, "\(error)")
                } else {
                    #expect(refused.contains(index) && error.field == "activity.id"
                            && error.message.contains("already queued or on screen in module"), "line \(index): \(error)")
                }
            case .event: Issue.record("an event nobody asked for")
            }
        }
        let list = try daemon.request(.list(module: nil))
        let module = try #require(list["modules"]?.items.first)
        let ids = ([module["current"]].compactMap { $0 } + (module["pending"]?.items ?? [])).compactMap { $0["id"]?.text }
        let queued = sent.indices.filter { !refused.contains($0) && $0 != listLine && $0 != otherModule }
        #expect(ids == queued.map { sent[$0].id.description })
        #expect(daemon.stop().status == 0)
    }
}
