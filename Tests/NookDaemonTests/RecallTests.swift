import NookActivities
import NookConfig
@testable import NookDaemon
import NookProtocol
import NookTestSupport
import Testing

/// U5's recall gesture on injected clocks: which entries, in which order, marked how; when the
/// display counts as idle; and how a recall moves on, ends, and gives way to a real card. The
/// recall queue is left unbound here, so its cards wait in order and can be read.
@Suite("U5 recall: the newest history entries on an idle display")
struct RecallTests {
    let wall = TestSeconds()

    func history(ended titles: [String]) -> ActivityHistory {
        let history = ActivityHistory(path: nil, warn: { _ in }, wallClock: wall.clock, monotonic: wall.clock)
        _ = history.start()
        for title in titles {
            var activity = NookActivity(title: title, subtitle: "from the " + title, systemImage: "bell", tint: .named(.green))
            activity.hasAction = true
            history.record([NookActivityEvent(activity: activity, kind: .enqueued, at: .origin, module: "default")], module: "default")
            history.record([NookActivityEvent(activity: activity, kind: .hidden(.completed), at: .origin, module: "default")], module: "default")
            wall.advance(60)
        }
        return history
    }

    func recall(_ history: ActivityHistory, settings: HistoryRecall.Settings = .init()) -> HistoryRecall {
        HistoryRecall(settings: settings, clock: ManualClock(), history: history, wallClock: wall.clock, log: { _ in })
    }

    /// The recall's cards, once its queueing task has run (no time passes: only tasks run).
    func waitingCards(_ recall: HistoryRecall, count: Int) async -> [NookActivity] {
        var turns = 0
        while await recall.queue.pendingCount != count, turns < 100_000 {
            turns += 1
            await Task.yield()
        }
        return await recall.queue.pending
    }

    func event(_ title: String, _ kind: NookActivityEvent.Kind, id: NookActivityID) -> NookActivityEvent {
        NookActivityEvent(activity: NookActivity(id: id, title: title), kind: kind, at: .origin, module: "default")
    }

    @Test func u5_aRecallShowsTheNewestEntriesNewestFirstMarkedRecalledWithWhenTheyEnded() async {
        let recall = recall(history(ended: (1...7).map { "card \($0)" }), settings: .init(hold: .milliseconds(800), entries: 5, dwell: .seconds(2)))
        #expect(recall.start())
        let cards = await waitingCards(recall, count: 5)
        #expect(cards.map(\.title) == ["card 7", "card 6", "card 5", "card 4", "card 3"])
        // card 7 ended 60 s before the wall clock's now, card 3 five minutes before that.
        #expect(cards.first?.subtitle == "Recalled · 1 min ago · from the card 7")
        #expect(cards.last?.subtitle == "Recalled · 5 min ago · from the card 3")
        #expect(cards.allSatisfy { $0.isTransient && !$0.hasAction && $0.dwell == .seconds(2) && $0.systemImage == "bell" && $0.tint == .named(.green) })
        #expect(recall.isActive)
        #expect(!recall.start(), "one recall at a time")
    }

    @Test func u5_withNoHistoryTheRecallSaysNothingRecent() async {
        let recall = recall(history(ended: []))
        #expect(recall.start())
        let cards = await waitingCards(recall, count: 1)
        #expect(cards.map(\.title) == ["Nothing recent"])
        #expect(cards.first?.dwell == HistoryRecall.nothingRecentDwell)
    }

    @Test func u5_aDisplayWithACardLiveIsNotIdleAndIsNotRecalled() async {
        let recall = recall(history(ended: ["old"]))
        let id = NookActivityID()
        recall.observeModule([event("on the glass", .enqueued, id: id)])
        #expect(!recall.start(), "a card is live: the long press stays a short press")
        recall.observeModule([event("on the glass", .hidden(.completed), id: id)])
        #expect(recall.start())
        #expect(await waitingCards(recall, count: 1).map(\.title) == ["old"])
    }

    @Test func u5_openMovesOnDismissEndsAndTheRecallEndsByItself() async {
        let recall = recall(history(ended: ["a", "b", "c"]))
        #expect(!recall.advance(), "no recall: a press is a press")
        #expect(!recall.end(because: "test"))
        #expect(recall.start())
        _ = await waitingCards(recall, count: 3)
        #expect(recall.advance())
        #expect(await waitingCards(recall, count: 2).map(\.title) == ["b", "a"])
        // Two presses in quick succession move on twice.
        #expect(recall.advance() && recall.advance())
        #expect(await waitingCards(recall, count: 0).isEmpty)
        #expect(!recall.isActive, "past the last entry: over")
        #expect(recall.start())
        _ = await waitingCards(recall, count: 3)
        #expect(recall.end(because: "dismiss pressed"))
        #expect(!recall.isActive)
        #expect(await waitingCards(recall, count: 0).isEmpty)
        #expect(!recall.advance())
        // Again, and this time every card ends: the recall is over by itself.
        #expect(recall.start())
        for card in await waitingCards(recall, count: 3) {
            #expect(recall.isActive)
            _ = await recall.queue.cancel(card.id)
        }
        #expect(!recall.isActive)
    }

    @Test func u5_aRealCardArrivingEndsTheRecall() async {
        let recall = recall(history(ended: ["a", "b"]))
        #expect(recall.start())
        _ = await waitingCards(recall, count: 2)
        recall.observeModule([event("Doorbell", .enqueued, id: NookActivityID())])
        #expect(!recall.isActive)
        #expect(await waitingCards(recall, count: 0).isEmpty)
    }

    @Test func u5_aRecallEndedBeforeItsCardsWereQueuedShowsNone() async {
        let recall = recall(history(ended: ["a", "b"]))
        #expect(recall.start())
        // Before the queueing task has run.
        #expect(recall.end(because: "dismiss pressed"))
        for _ in 0..<1000 { await Task.yield() }
        #expect(await recall.queue.pendingCount == 0)
    }

    @Test func u5_recallCardsAreFittedToTheScreenAsAnyCardIs() async {
        // An LED matrix keeps a scrolling title one full pass: the screen lengthens the dwell.
        let recall = HistoryRecall(settings: .init(dwell: .seconds(1)), clock: ManualClock(), history: history(ended: ["a long title"]),
                                   wallClock: wall.clock, fit: { var card = $0; card.dwell = .seconds(9); return card }, log: { _ in })
        #expect(recall.start())
        #expect(await waitingCards(recall, count: 1).map(\.dwell) == [.seconds(9)])
    }

    @Test func u5_noHoldConfiguredMeansNoGesture() {
        let recall = recall(history(ended: ["a"]), settings: .init(hold: nil))
        #expect(!recall.start())
    }

    @Test func u5_howLongAgoReadsAtAGlance() {
        #expect(HistoryRecall.ago(5) == "just now")
        #expect(HistoryRecall.ago(-3) == "just now", "a wall clock set back")
        #expect(HistoryRecall.ago(12 * 60 + 30) == "12 min ago")
        #expect(HistoryRecall.ago(3 * 3600 + 5) == "3 h ago")
        #expect(HistoryRecall.ago(2 * 86_400) == "2 d ago")
    }

    func config(_ text: String) throws -> DaemonConfig {
        try DaemonConfig(reading: ConfigReader(try ConfigDocument(parsing: text, source: "nook.toml")))
    }

    @Test func u5_theRecallKeysLiveInTheHistoryTableAndArmOnlyToggleButtons() throws {
        let buttons = "[gpio.button]\nline = \"B\"\nrole = \"open\"\n[gpio.lid]\nline = \"L\"\nrole = \"open\"\nmode = \"level\"\n"
        let defaults = try config(buttons)
        #expect(defaults.recall == HistoryRecall.Settings())
        #expect(defaults.inputs.gpioLines.map(\.longPressAfter) == [.milliseconds(800), nil], "a lid's level is a state, not a press")
        let set = try config("[history]\nrecall_hold_ms = 1200\nrecall_entries = 3\nrecall_dwell_ms = 2000\n" + buttons)
        #expect(set.recall == HistoryRecall.Settings(hold: .milliseconds(1200), entries: 3, dwell: .seconds(2)))
        #expect(set.inputs.gpioLines.first?.longPressAfter == .milliseconds(1200))
        let off = try config("[history]\nrecall_hold_ms = 0\n" + buttons)
        #expect(off.recall.hold == nil && off.inputs.gpioLines.first?.longPressAfter == nil)
        for (text, key) in [("recall_entries = 0", "history.recall_entries"), ("recall_dwell_ms = 100", "history.recall_dwell_ms"),
                            ("recall_hold_ms = -5", "history.recall_hold_ms"), ("recall_hold = 5", "history.recall_hold"),
                            ("recall_hold_ms = 20", "at least 200 ms")] {
            #expect { try config("[history]\n" + text + "\n") } throws: { "\($0)".contains(key) }
        }
        // Within the debounce every tap would be a long press, and open could never open.
        #expect(try config("[history]\nrecall_hold_ms = 200\n").recall.hold == .milliseconds(200))
    }

    @Test func u5_aRecalledIconFileIsCheckedAgainAndLeftOutWhenNoLongerAllowed() async {
        let history = ActivityHistory(path: nil, warn: { _ in }, wallClock: wall.clock, monotonic: wall.clock)
        _ = history.start()
        // Accepted once from a directory the configuration no longer lists (or a file since
        // replaced by a link elsewhere): the recall must not read it with nookd's rights.
        for (title, icon) in [("named", "bell"), ("file", "/etc/passwd")] {
            let activity = NookActivity(title: title, systemImage: icon)
            history.record([NookActivityEvent(activity: activity, kind: .enqueued, at: .origin, module: "default")], module: "default")
            history.record([NookActivityEvent(activity: activity, kind: .hidden(.completed), at: .origin, module: "default")], module: "default")
        }
        let recall = recall(history)
        #expect(recall.start())
        let cards = await waitingCards(recall, count: 2)
        #expect(cards.map(\.title) == ["file", "named"])
        #expect(cards.map(\.systemImage) == [nil, "bell"])
    }

    @Test func u5_aCardMovedPastBeforeItWasQueuedNeverReachesTheGlass() async {
        let recall = recall(history(ended: ["older", "newer"]))
        #expect(recall.start())
        // A second press before the recall's cards are queued (pipelined presses on the socket).
        #expect(recall.advance())
        for _ in 0..<1000 { await Task.yield() }
        #expect(await recall.queue.pending.map(\.title) == ["older"])
        #expect(recall.isActive)
    }
}
