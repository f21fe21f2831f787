import Foundation
import NookActivities
import NookProtocol
import NookTestTraits
import Testing

/// U4 with J1 through a real nookd: once nookd answered that a card on the glass was cancelled
/// or dismissed, a `kill -9` during its slide out does not lose its history entry.
@Suite("U4 J1 an answer that ends a card on the glass leaves after its history entry is kept", .serialized, .ownThreads)
struct HistoryAcknowledgementTests {
    enum Ending: CaseIterable {
        case cancel, dismissByID, dismissOnGlass

        var operation: (NookActivityID) -> NookOperation {
            switch self {
            case .cancel: { .cancel($0) }
            case .dismissByID: { .dismiss($0) }
            case .dismissOnGlass: { _ in .dismiss(nil) }
            }
        }

        var recorded: String { self == .cancel ? "cancelled" : "dismissed" }
    }

    /// A long slide out: the kill right after the answer always falls inside it.
    func card(_ title: String) -> NookActivity {
        var card = NookActivity(title: title, dwell: .seconds(3600))
        card.transition = .milliseconds(800)
        return card
    }

    func history(_ daemon: DaemonProcess) throws -> [HistoryEntry] {
        let result = try nookctl(["history", "--json"], socket: daemon.socket)
        #expect(result.status == 0, "\(result)")
        return try HistoryAnswer(json: JSONValue.parse(Array(result.output.utf8))).entries
    }

    /// Enqueues `card` with a watch open and returns once it is presented on the glass.
    func onGlass(_ daemon: DaemonProcess, _ card: NookActivity) throws {
        let watcher = try daemon.client(timeout: .seconds(30))
        try watcher.send(Request(id: .string("watch"), operation: .watch).encoded())
        _ = try watcher.readLine()
        try daemon.request(.enqueue(card, module: nil, wait: false))
        _ = try readEvents(watcher) { $0["event"]?.text == "presented" && $0["id"]?.text == card.id.description }
    }

    @Test func u4_j1_cancelOrDismissOfACardOnTheGlassKeepsItsHistoryEntryThroughAKillRightAfterTheAnswer() throws {
        let scratch = Scratch()
        let arguments = ["--journal", scratch.path + "/journal"]
        var daemon = try DaemonProcess(scratch: scratch, arguments: arguments)
        var expected: [(id: String, ending: String, onGlass: Bool)] = []
        for round in 0..<2 {
            for ending in Ending.allCases {
                let shown = card("On the glass \(round) \(ending)")
                try onGlass(daemon, shown)
                // A pending card ended the same way on the same connection: its entry is kept too.
                let pending = card("Pending \(round) \(ending)")
                let client = try daemon.client()
                _ = try client.request(Request(id: .number(1), operation: .enqueue(pending, module: nil, wait: false)))
                _ = try client.request(Request(id: .number(2), operation: ending == .cancel ? .cancel(pending.id) : .dismiss(pending.id)))
                let answer = try client.request(Request(id: .number(3), operation: ending.operation(shown.id)))
                daemon.crash()
                #expect((ending == .cancel ? answer["cancelled"] : answer["dismissed"])?.text == shown.id.description, "\(answer)")
                expected += [(pending.id.description, ending.recorded, false), (shown.id.description, ending.recorded, true)]

                daemon = try DaemonProcess(scratch: scratch, arguments: arguments)
                let entries = try history(daemon)
                for (id, how, wasOnGlass) in expected {
                    let found = entries.filter { $0.activity.id.description == id }
                    #expect(found.count == 1 && found.first?.ending == how && found.first?.onGlass == wasOnGlass,
                            "round \(round), \(ending): the entry of \(id) (\(how)) after kill -9 right after the answer: \(found)")
                }
                let module = try #require(try daemon.request(.list(module: nil))["modules"]?.items.first)
                #expect(module["current"]?["id"]?.text == nil && (module["pending"]?.items ?? []).isEmpty, "nothing ended comes back: \(module)")
            }
        }
        // Without a crash, the card's own end after its slide out adds no second entry.
        let shown = card("Slides out in full")
        try onGlass(daemon, shown)
        let watcher = try daemon.client(timeout: .seconds(30))
        try watcher.send(Request(id: .string("watch"), operation: .watch).encoded())
        _ = try watcher.readLine()
        let answer = try daemon.request(.cancel(shown.id))
        #expect(answer["cancelled"]?.text == shown.id.description)
        let events = try readEvents(watcher) { $0["event"]?.text == "hidden" && $0["id"]?.text == shown.id.description }
        #expect(events.last?["reason"]?.text == "cancelled", "\(events)")
        let entries = try history(daemon).filter { $0.activity.id.description == shown.id.description }
        #expect(entries.count == 1 && entries.first?.ending == "cancelled" && entries.first?.onGlass == true, "\(entries)")
        #expect(try history(daemon).count == expected.count + 1)
        #expect(daemon.stop().status == 0)
    }
}
