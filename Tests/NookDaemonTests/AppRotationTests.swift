import NookActivities
@testable import NookDaemon
import NookProtocol
import NookTestSupport
import Testing

/// A1 and A2 on injected clocks: the rotation's turns, cards first, engagement holding it,
/// lifetimes running out, and a display without apps left as it was. The app queue is left
/// unbound, so the card of the turn waits in it and can be read: one pending card is the app
/// on the glass, none is the home content.
@Suite("A2 the rotation on injected clocks")
struct AppRotationTests {
    let wall = TestSeconds()
    let clock = ManualClock()
    let engaged = Locked(false)

    func rotation(duration: Duration = .seconds(7)) -> (AppRotation, Task<Void, Never>) {
        let rotation = AppRotation(settings: .init(duration: duration), clock: clock, wallClock: wall.clock,
                                   engaged: { [engaged] in engaged.withLock { $0 } }, log: { _ in })
        return (rotation, Task { await rotation.runCommands() })
    }

    /// The titles of the app cards waiting, once the commands have run (only tasks run).
    func cards(_ rotation: AppRotation, _ expected: [String]) async -> [String] {
        var turns = 0
        var titles: [String] = []
        repeat {
            titles = await rotation.queue.pending.map(\.title)
            turns += 1
            await Task.yield()
        } while titles != expected && turns < 100_000
        return titles
    }

    /// Advances both clocks, and lets the timer's task run.
    func pass(_ seconds: Int, _ rotation: AppRotation) async {
        let before = rotation.switches
        wall.advance(Double(seconds))
        clock.advance(by: .seconds(seconds))
        for _ in 0..<2000 where rotation.switches == before { await Task.yield() }
    }

    func app(_ name: String, _ text: String, position: Int? = nil, duration: Duration? = nil) -> NookApp {
        NookApp(name: name, content: .text(text), duration: duration, position: position)
    }

    @Test func a2_withoutAppsNoTimerIsSetAndNothingWakes() async throws {
        let (rotation, commands) = rotation()
        defer { commands.cancel() }
        #expect(!rotation.waiting)
        clock.advance(by: .seconds(3600))
        for _ in 0..<100 { await Task.yield() }
        #expect(clock.sleeperCount == 0, "no app: the rotation sleeps on no clock")
        #expect(rotation.switches == 0)
        #expect(await rotation.queue.pendingCount == 0)
        // One app and its removal: back to no timer at all.
        try rotation.set(app("weather", "21 °C"))
        #expect(rotation.waiting)
        #expect(try rotation.remove("weather") != nil)
        #expect(!rotation.waiting)
        for _ in 0..<100 { await Task.yield() }
        #expect(clock.sleeperCount == 0)
    }

    @Test func a2_homeAndTheAppsTakeTurnsInPositionOrderEachForItsDuration() async throws {
        let (rotation, commands) = rotation()
        defer { commands.cancel() }
        try rotation.set(app("bus", "Bus 12 in 4 min", position: 2, duration: .seconds(10)))
        try rotation.set(app("weather", "21 °C", position: 1))
        #expect(rotation.turn == nil, "the home content's turn comes first")
        #expect(await cards(rotation, []) == [])
        await pass(7, rotation)
        #expect(rotation.turn == "weather")
        #expect(await cards(rotation, ["21 °C"]) == ["21 °C"])
        await pass(7, rotation)
        #expect(rotation.turn == "bus")
        #expect(await cards(rotation, ["Bus 12 in 4 min"]) == ["Bus 12 in 4 min"])
        // Its own duration: 7 s is not enough.
        await pass(7, rotation)
        #expect(rotation.turn == "bus")
        await pass(3, rotation)
        #expect(rotation.turn == nil, "back to the home content")
        #expect(await cards(rotation, []) == [])
    }

    @Test func a1_anUpdateOfTheAppOnTheGlassRedrawsItInPlace() async throws {
        let (rotation, commands) = rotation()
        defer { commands.cancel() }
        try rotation.set(app("weather", "21 °C"))
        await pass(7, rotation)
        let first = await cards(rotation, ["21 °C"])
        #expect(first == ["21 °C"])
        let id = await rotation.queue.pending.first?.id
        #expect(try rotation.set(app("weather", "22 °C")) != nil)
        #expect(await cards(rotation, ["22 °C"]) == ["22 °C"])
        #expect(await rotation.queue.pending.first?.id == id, "the same card, changed where it stands")
    }

    /// An update that moves no turn and no lifetime leaves the timer as it was (each new one
    /// woke two tasks while the update was drawn); one that brings a lifetime sooner resets it.
    @Test func a1_a6_anUpdateOfTheAppOnTheGlassKeepsTheTimerItWaitsOn() async throws {
        let (rotation, commands) = rotation()
        defer { commands.cancel() }
        try rotation.set(app("weather", "21 °C"))
        await pass(7, rotation)
        #expect(rotation.turn == "weather")
        let timer = try #require(rotation.timerTask)
        for degrees in 22...41 {
            try rotation.set(app("weather", "\(degrees) °C"))
            #expect(rotation.timerTask == timer, "update to \(degrees) °C")
        }
        #expect(await cards(rotation, ["41 °C"]) == ["41 °C"])
        #expect(!timer.isCancelled)
        // The timer kept still ends the turn on time.
        await pass(7, rotation)
        #expect(rotation.turn == nil, "the home content's turn follows")
        #expect(await cards(rotation, []) == [])

        await pass(7, rotation)
        #expect(rotation.turn == "weather")
        let before = try #require(rotation.timerTask)
        var shortLived = app("weather", "42 °C")
        shortLived.lifetime = .seconds(3)
        try rotation.set(shortLived)
        #expect(rotation.timerTask != before, "a lifetime sooner than the turn's end sets a new timer")
        #expect(before.isCancelled)
        wall.advance(3)
        clock.advance(by: .seconds(3))
        for _ in 0..<2000 where rotation.count == 1 { await Task.yield() }
        #expect(rotation.count == 0, "its lifetime removed it, by the new timer")
    }

    @Test func a2_aCardGoesFirstAndTheRotationResumesWhereItWas() async throws {
        let (rotation, commands) = rotation()
        defer { commands.cancel() }
        try rotation.set(app("a", "App A", position: 1))
        try rotation.set(app("b", "App B", position: 2))
        await pass(7, rotation)
        #expect(await cards(rotation, ["App A"]) == ["App A"])
        let card = NookActivityID()
        rotation.observeModule([NookActivityEvent(activity: NookActivity(id: card, title: "Doorbell"), kind: .enqueued, at: .origin, module: "default")])
        #expect(await cards(rotation, []) == [], "the app's card ends at once for the real one")
        let switches = rotation.switches
        await pass(60, rotation)
        #expect(rotation.switches == switches && rotation.turn == "a", "no turn passes while a card is live")
        rotation.observeModule([NookActivityEvent(activity: NookActivity(id: card, title: "Doorbell"), kind: .hidden(.completed), at: .origin, module: "default")])
        #expect(await cards(rotation, ["App A"]) == ["App A"], "the turn it was on shows again")
        await pass(7, rotation)
        #expect(rotation.turn == "b")
    }

    @Test func a2_whileSomeoneIsEngagedTheRotationHoldsStill() async throws {
        let (rotation, commands) = rotation()
        defer { commands.cancel() }
        try rotation.set(app("a", "App A"))
        await pass(7, rotation)
        #expect(rotation.turn == "a")
        engaged.withLock { $0 = true }
        await pass(7, rotation)
        await pass(7, rotation)
        #expect(rotation.turn == "a")
        #expect(await cards(rotation, ["App A"]) == ["App A"])
        engaged.withLock { $0 = false }
        await pass(7, rotation)
        #expect(rotation.turn == nil)
    }

    @Test func a2_nextPreviousAndSwitchTurnTheRotationByHand() async throws {
        let (rotation, commands) = rotation()
        defer { commands.cancel() }
        try rotation.set(app("a", "App A", position: 1))
        try rotation.set(app("b", "App B", position: 2))
        #expect(rotation.move(by: 1).turn == "a")
        #expect(rotation.move(by: 1).turn == "b")
        #expect(rotation.move(by: 1).turn == nil)
        #expect(rotation.move(by: -1).turn == "b")
        #expect(rotation.switchTo("a")?.turn == "a")
        #expect(rotation.switchTo("nope") == nil)
        #expect(await cards(rotation, ["App A"]) == ["App A"])
    }

    @Test func a1_aLifetimeRemovesTheAppOrMarksItStaleWithItsAge() async throws {
        let (rotation, commands) = rotation(duration: .seconds(600))
        defer { commands.cancel() }
        var gone = app("gone", "Gone soon", position: 1)
        gone.lifetime = .seconds(30)
        var stale = app("stale", "Old news", position: 2)
        stale.lifetime = .seconds(60)
        stale.lifetimeMode = .stale
        try rotation.set(gone)
        try rotation.set(stale)
        #expect(rotation.switchTo("stale")?.turn == "stale")
        #expect(await cards(rotation, ["Old news"]) == ["Old news"])
        wall.advance(30)
        clock.advance(by: .seconds(30))
        for _ in 0..<2000 where rotation.count == 2 { await Task.yield() }
        #expect(rotation.list().map(\.app.name) == ["stale"], "its lifetime removed it, on the clocks given")
        wall.advance(31)
        clock.advance(by: .seconds(31))
        for _ in 0..<2000 where rotation.list().first?.stale != true { await Task.yield() }
        #expect(rotation.list().first?.stale == true)
        var subtitle: String?
        for _ in 0..<2000 where subtitle == nil {
            subtitle = await rotation.queue.pending.first?.subtitle
            await Task.yield()
        }
        #expect(subtitle == "stale · set 1 min ago")
        #expect(await rotation.queue.pending.first?.tint == .named(.gray), "drawn dimmed")
    }

    /// The turn of an app its lifetime removed goes to the app after it, as a removal's does,
    /// not back to the first app of the rotation.
    @Test func a2_theTurnOfAnAppThatRanOutGoesToTheAppAfterIt() async throws {
        let (rotation, commands) = rotation(duration: .seconds(600))
        defer { commands.cancel() }
        try rotation.set(app("a", "App A", position: 1))
        var gone = app("b", "App B", position: 2)
        gone.lifetime = .seconds(30)
        try rotation.set(gone)
        var alsoGone = app("c", "App C", position: 3)
        alsoGone.lifetime = .seconds(30)
        try rotation.set(alsoGone)
        try rotation.set(app("d", "App D", position: 4))
        #expect(rotation.switchTo("b")?.turn == "b")
        wall.advance(30)
        clock.advance(by: .seconds(30))
        for _ in 0..<2000 where rotation.count == 4 { await Task.yield() }
        #expect(rotation.list().map(\.app.name) == ["a", "d"])
        #expect(rotation.turn == "d", "b and c ran out together: the turn passes both, to d")
        #expect(await cards(rotation, ["App D"]) == ["App D"])
    }

    /// `[apps] duration_ms` shortened by a reload ends the turn under way by the new length,
    /// not after the hour the old one gave it.
    @Test func a2_n1_aShorterDurationReloadedEndsTheTurnUnderWayByIt() async throws {
        let (rotation, commands) = rotation(duration: .seconds(3600))
        defer { commands.cancel() }
        try rotation.set(app("a", "App A"))
        #expect(rotation.turn == nil, "the home content's turn first, an hour long")
        rotation.setSettings(.init(duration: .seconds(7)))
        await pass(7, rotation)
        #expect(rotation.turn == "a", "the reloaded 7 s ended the home content's turn")
        #expect(await cards(rotation, ["App A"]) == ["App A"])
        // A longer one applies from the next turn: the turn under way keeps its end.
        rotation.setSettings(.init(duration: .seconds(3600)))
        await pass(7, rotation)
        #expect(rotation.turn == nil)
    }

    @Test func a4_dismissOnAnIdleDisplayMovesOnAndOpenRunsTheAppsAction() async throws {
        let (rotation, commands) = rotation()
        defer { commands.cancel() }
        #expect(!rotation.pressedNext(), "no apps: the press is the card's")
        var action = app("door", "Front door", position: 1)
        action.hasAction = true
        try rotation.set(action)
        try rotation.set(app("b", "App B", position: 2))
        #expect(!rotation.pressedOpen(), "home on the glass: open is open's")
        #expect(rotation.pressedNext())
        #expect(rotation.turn == "door")
        #expect(!rotation.pressedOpen(), "not on the glass yet: nothing to act on")
        rotation.cardTookTheGlass()
        #expect(rotation.pressedOpen())
        #expect(rotation.pressedNext())
        #expect(rotation.turn == "b")
        #expect(!rotation.pressedOpen(), "an app without an action")
        rotation.observeModule([NookActivityEvent(activity: NookActivity(title: "Doorbell"), kind: .enqueued, at: .origin, module: "default")])
        #expect(!rotation.pressedNext(), "a card is live: dismiss is the card's")
    }

    /// The one place that decides what presses do gives an idle display's to the rotation.
    @Test func a4_inputRulesGiveTheIdleDisplaysPressesToTheRotation() async throws {
        let (rotation, commands) = rotation()
        defer { commands.cancel() }
        let history = ActivityHistory(path: nil, warn: { _ in }, wallClock: wall.clock, monotonic: wall.clock)
        _ = history.start()
        let recall = HistoryRecall(settings: .init(), clock: clock, history: history, wallClock: wall.clock, log: { _ in })
        let rules = InputRules(queues: [NookActivityQueue(clock: clock)], recall: recall, actionCards: ActionCards(),
                               menuTakesOpen: { false }, apps: rotation)
        #expect(rules.dismiss(because: "test") == .cardDismissed, "no apps: dismiss is the card's, as before")
        #expect(rules.open() == .toggle)
        var door = app("door", "Front door", position: 1)
        door.hasAction = true
        try rotation.set(door)
        #expect(rules.dismiss(because: "test") == .nextApp)
        #expect(rotation.turn == "door")
        rotation.cardTookTheGlass()
        let opened = rules.open()
        #expect(opened == .appAction && opened.taken, "the app's action, not a key for nook-lcdproc's clients")
        rotation.observeModule([NookActivityEvent(activity: NookActivity(title: "Doorbell"), kind: .enqueued, at: .origin, module: "default")])
        #expect(rules.dismiss(because: "test") == .cardDismissed, "a card is live: dismiss is the card's")
        #expect(rules.open() == .toggle)
    }

    /// Who may change an app is decided in the same step as the change (U3): a refused
    /// replacement or removal changes nothing, and an admitted update keeps the app's owner.
    @Test func a1_u3_aRefusedChangeChangesNothingAndAnUpdateKeepsTheOwner() async throws {
        let (rotation, commands) = rotation()
        defer { commands.cancel() }
        let refuse: (NookAppShelf.Entry) -> ProtocolError? = { ProtocolError(.forbidden, field: "name", "not \($0.app.name)'s sender") }
        var mine = app("weather", "21 °C")
        mine.sender = NookSender(uid: 1000, pid: 1)
        try rotation.set(mine, admits: refuse)
        #expect(rotation.entry("weather")?.app.sender?.uid == 1000, "a new name is anyone's")
        var theirs = app("weather", "hijacked")
        theirs.sender = NookSender(uid: 1001, pid: 2)
        #expect(throws: AppRotation.Refusal.self) { try rotation.set(theirs, admits: refuse) }
        #expect(rotation.entry("weather")?.app.content == .text("21 °C"))
        #expect(throws: AppRotation.Refusal.self) { try rotation.remove("weather", admits: refuse) }
        #expect(rotation.count == 1)
        try rotation.set(theirs)
        #expect(rotation.entry("weather")?.app.content == .text("hijacked"))
        #expect(rotation.entry("weather")?.app.sender?.uid == 1000, "an admitted update keeps the owner")
        #expect(try rotation.remove("nope", admits: refuse) == nil, "nothing to refuse")
    }

    /// The `invoked` event names the app from its card's key, whatever the name begins with.
    @Test func a1_theInvokedEventNamesAnAppWhoseNameBeginsWithACombiningMark() throws {
        for name in ["\u{301}x", "\u{301}", "weather", "e\u{301}t\u{E9}", "app:app"] {
            try NookApp(name: name, content: .text("Hi")).validate()
            let key = AppRotation.key(of: name)
            #expect(AppRotation.name(ofKey: key).map { Array($0.unicodeScalars) } == Array(name.unicodeScalars))
        }
        #expect(AppRotation.name(ofKey: "door") == nil)
        #expect(AppRotation.name(ofKey: nil) == nil)
    }

    @Test func a2_anAppCardIsAGlanceOfTheApp() {
        var app = app("power", "1.2 kW")
        app.chart = NookApp.Chart(.bar, [0, 5, 10])
        app.progress = 0.5
        app.icon = "bolt"
        app.tint = .named(.yellow)
        let card = AppRotation.card(for: NookAppShelf.Entry(app: app, setAt: 0, arrival: 1), now: 0)
        #expect(card.title == "1.2 kW")
        #expect(card.subtitle == "▁▅█")
        #expect(card.progress == 0.5 && card.systemImage == "bolt" && card.tint == .named(.yellow))
        #expect(card.isBlocker && card.isTransient && card.coalescingKey == "app:power")
        #expect(card.endDelay == .zero, "a switch between two apps is one motion, without a pause to wake for twice")
        #expect(AppRotation.chartText(NookApp.Chart(.line, [1, 2, 3])) == "⣀⠒⠉")
    }

    /// The card carries what the LED matrix and the card renderer draw an app by (A5): its
    /// fragments with their colours and its chart; stale, its fragments lose their colours.
    @Test func a5_anAppCardCarriesItsFaceForTheRenderers() {
        let runs = [NookApp.Fragment("21", tint: .rgb(red: 255, green: 0, blue: 0)), NookApp.Fragment(" °C")]
        var app = NookApp(name: "weather", content: .fragments(runs), chart: NookApp.Chart(.line, [1, 2]))
        app.lifetime = .seconds(60)
        app.lifetimeMode = .stale
        let fresh = AppRotation.card(for: NookAppShelf.Entry(app: app, setAt: 0, arrival: 1), now: 10)
        #expect(fresh.title == "21 °C")
        #expect(fresh.app == NookAppFace(fragments: runs, chart: NookApp.Chart(.line, [1, 2]), stale: false))
        #expect(fresh.app?.runs(of: fresh.title) == runs)
        let stale = AppRotation.card(for: NookAppShelf.Entry(app: app, setAt: 0, arrival: 1), now: 120)
        #expect(stale.app?.stale == true && stale.tint == .named(.gray))
        #expect(stale.app?.runs(of: stale.title) == [NookApp.Fragment("21 °C")], "drawn grey as a whole")
        #expect(AppRotation.card(for: NookAppShelf.Entry(app: self.app("bus", "42"), setAt: 0, arrival: 1), now: 0).app?.fragments == [])
    }
}

/// L3 for apps: an app whose text scrolls longer than a turn on an LED matrix keeps the glass
/// until its scroll has gone round once, as AWTRIX lengthens a custom app's turn, unless the
/// app named a duration of its own.
@Suite("A2 an app's turn lasts its scroll")
struct AppScrollTurnTests {
    let wall = TestSeconds()
    let clock = ManualClock()

    func pass(_ seconds: Int, _ rotation: AppRotation) async {
        let before = rotation.switches
        wall.advance(Double(seconds))
        clock.advance(by: .seconds(seconds))
        for _ in 0..<2000 where rotation.switches == before { await Task.yield() }
    }

    @Test func a2_l3_anAppWhoseTextScrollsLongerThanItsTurnKeepsTheGlassUntilItHasGoneRound() async throws {
        // A scroll pass of 12 s for the long text, none for the short one.
        let rotation = AppRotation(settings: .init(duration: .seconds(7)), clock: clock, wallClock: wall.clock,
                                   scrollPass: { $0.title.count > 20 ? .seconds(12) : nil }, log: { _ in })
        let commands = Task { await rotation.runCommands() }
        defer { commands.cancel() }
        try rotation.set(NookApp(name: "news", content: .text(String(repeating: "Long headline ", count: 5)), position: 1))
        try rotation.set(NookApp(name: "timed", content: .text(String(repeating: "Long headline ", count: 5)), duration: .seconds(7),
                                 position: 2))
        try rotation.set(NookApp(name: "short", content: .text("21 °C"), position: 3))
        await pass(7, rotation)
        #expect(rotation.turn == "news")
        await pass(7, rotation)
        #expect(rotation.turn == "news", "7 s of a 12 s scroll: the text is still going by")
        await pass(5, rotation)
        #expect(rotation.turn == "timed", "the scroll has gone round: the next app")
        await pass(7, rotation)
        #expect(rotation.turn == "short", "an app's own duration is kept even though its text is cut off")
        await pass(7, rotation)
        #expect(rotation.turn == nil, "a text that fits keeps the default turn")
    }
}
