import Foundation
import NookActivities
import NookProtocol
import NookTestTraits
import Testing

/// nookd's dispatch against the protocol's table of operations (C1): every operation of the
/// table has a handler, and a handler answers with the answer type the table names.
@Suite("C1 nookd answers every operation of the table", .serialized, .ownThreads)
struct OperationDispatchTests {
    /// A request of each operation that this nookd can carry out. A switch over the table: a
    /// new operation does not compile here until it has one.
    static func request(_ name: NookOperation.Name, card: NookActivityID, other: NookActivityID) -> NookOperation {
        switch name {
        case .enqueue: .enqueue(NookActivity(id: other, title: "Second"), module: nil, wait: false)
        case .cancel: .cancel(other)
        case .cancelAll: .cancelAll(key: "dispatch", module: nil)
        case .dismiss: .dismiss(card)
        case .suspend: .suspend(module: nil)
        case .resume: .resume(module: nil)
        case .quiesce: .quiesce(module: nil)
        case .status: .status
        case .list: .list(module: nil)
        case .watch: .watch
        case .snapshot: .snapshot
        case .home: .home(.text("Dispatch"))
        case .focus: .focus(module: "default")
        case .glance: .glance(nil)
        case .quiet: .quiet(.status)
        case .indicator: .indicator(NookIndicator(number: 1, color: 0x00FF00))
        case .display: .display(DisplaySetting(power: .on))
        case .update: .update(.id(card), changes: ActivityChanges(members: [("progress", .number(0.5))]), restartDwell: false)
        case .inputs: .inputs
        case .press: .press(.open)
        case .invoke: .invoke(card)
        case .history: .history(HistoryQuery())
        case .historyShow: .historyShow(.number(1))
        case .historyReplay: .historyReplay(.number(1))
        case .historyClear: .historyClear
        case .frame: .frame(after: nil)
        case .appSet: .appSet(NookApp(name: "dispatch", content: .text("Dispatch")))
        case .appSetAll: .appSetAll([NookApp(name: "dispatch0", content: .text("Dispatch"))])
        case .appRemove: .appRemove("dispatch")
        case .appList: .appList
        case .appShow: .appShow("dispatch")
        case .appNext: .appNext
        case .appPrevious: .appPrevious
        case .appSwitch: .appSwitch("dispatch")
        case .soundPlay: .soundPlay(SoundRequest(sound: "doorbell"))
        case .soundStop: .soundStop
        case .soundVolume: .soundVolume(.read)
        case .iconsWanted: .iconsWanted
        }
    }

    @Test func c1_everyOperationIsAnsweredWithTheAnswerTypeOfTheTable() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[debug]\npress_inputs = true\n[queue]\npoll_interval_ms = 50\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        // A card on the glass with an action (invoke, update), and one that ends at once for
        // the history (history-show, history-replay).
        let card = NookActivityID(), other = NookActivityID()
        try daemon.request(.enqueue(NookActivity(title: "Gone", dwell: .milliseconds(50)), module: nil, wait: false))
        let onGlass = NookActivity(id: card, coalescingKey: "dispatch", title: "Blocker", presentation: .blocker(timeout: nil), hasAction: true)
        try daemon.request(.enqueue(onGlass, module: nil, wait: false))
        try eventually("the blocker on the glass and the first card in the history") {
            let phase = (try daemon.request(.status))["modules"]?.items.first?["phase"]
            let entries = (try daemon.request(.history(HistoryQuery())))["entries"]?.items.count
            return phase == .string("presented") && entries == 1
        }
        // In the table's order, but those that act on the card on the glass, take it off or
        // end it last, in this order.
        let last: [NookOperation.Name] = [.appRemove, .invoke, .press, .suspend, .quiesce, .resume, .dismiss, .historyClear]
        let order = NookOperation.Name.allCases.filter { !last.contains($0) } + last
        for name in order {
            let client = try daemon.client()
            let operation = Self.request(name, card: card, other: other)
            try client.send(Request(id: .number(1), operation: operation).encoded())
            let line = try #require(try client.readLine(), "\(name.rawValue): no answer")
            switch try ResponseLine.decode(line) {
            case .success(_, let result):
                do {
                    _ = try name.entry.answer.init(json: result)
                } catch {
                    Issue.record("\(name.rawValue) answered \(result.serialized), not a \(name.entry.answer): \(error)")
                }
            case .failure(_, let error):
                Issue.record("\(name.rawValue) failed: \(error)")
            case .event:
                Issue.record("\(name.rawValue) answered with an event: \(String(decoding: line, as: UTF8.self))")
            }
        }
        #expect(daemon.stop().status == 0)
    }
}
