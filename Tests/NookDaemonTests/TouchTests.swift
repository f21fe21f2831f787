import NookLogging
import NookActivities
import NookConfig
@testable import NookDaemon
import NookDisplay
import NookInput
import NookProtocol
import NookTestSupport
import Testing

/// A touch reader that is the test: the service starts and stops it, and the test sends the
/// gestures a panel's fingers would make through the closure the service gave it.
final class ScriptedTouchReader: TouchReading {
    private let gesture: @Sendable (TouchGesture) -> Void
    let settings: TouchConfig
    let geometry: TouchGeometry
    /// The device it "finds"; nil: a board without a touchscreen.
    let device: String?
    private let state = Locked((started: false, stopped: false))

    init(settings: TouchConfig, geometry: TouchGeometry, device: String?, gesture: @escaping @Sendable (TouchGesture) -> Void) {
        (self.settings, self.geometry, self.device, self.gesture) = (settings, geometry, device, gesture)
    }

    func start() { state.withLock { $0.started = true } }
    func stop() { state.withLock { $0.stopped = true } }
    var isRunning: Bool { state.withLock { $0.started && !$0.stopped } }
    var reading: TouchReadingState {
        device == nil ? TouchReadingState(problem: "no touchscreen under /dev/input") : TouchReadingState(device: device, name: "Scripted Touch")
    }

    func send(_ gestures: TouchGesture...) { gestures.forEach(gesture) }
}

/// The touch service between scripted gestures and real queues, a real recall and history, on a
/// manual clock.
final class TouchHarness: Sendable {
    let clock = ManualClock()
    let engagement = NookEngagement()
    let queue: NookActivityQueue
    let arbiter: NookSurfaceArbiter
    let recall: HistoryRecall
    let actionCards = ActionCards()
    let presses = InputBroadcast()
    let service: Service.Touch
    let recorder: EventRecorder
    let readers = Locked<[ScriptedTouchReader]>([])
    let logs = Locked<[String]>([])
    private let observation: NookObservation

    /// - Parameter keeping: what the snoozes are kept with (a journal, quiet hours), given the queue.
    init(history titles: [String] = [], touch: TouchConfig = TouchConfig(), device: String? = "/dev/input/event7", capacity: Int = 256,
         keeping: (NookActivityQueue, NookSurfaceArbiter) async -> Snoozes.Keeping = { _, _ in Snoozes.Keeping() }) async throws {
        let queue = NookActivityQueue(clock: clock, engagement: engagement, configuration: .init(pollInterval: .milliseconds(200), capacity: capacity))
        self.queue = queue
        arbiter = NookSurfaceArbiter(foreground: "main", clock: clock)
        arbiter.register(NookQueueModule(id: "main", queue: queue))
        await queue.bind(to: arbiter, moduleID: "main")
        recorder = EventRecorder(queue.events())
        let history = ActivityHistory(path: nil, warn: { _ in }, wallClock: { 1000 }, monotonic: { 1000 })
        _ = history.start()
        for title in titles {
            let activity = NookActivity(title: title)
            history.record([NookActivityEvent(activity: activity, kind: .enqueued, at: .origin, module: "main")], module: "main")
            history.record([NookActivityEvent(activity: activity, kind: .hidden(.completed), at: .origin, module: "main")], module: "main")
        }
        let recall = HistoryRecall(settings: .init(), clock: clock, history: history, log: { _ in })
        self.recall = recall
        let actionCards = actionCards
        observation = queue.observe { events in
            actionCards.observe(events)
            recall.observeModule(events)
        }
        let rules = InputRules(queues: [queue], recall: recall, actionCards: actionCards, menuTakesOpen: { false }, apps: nil)
        let effects = TouchActions.Effects(engagement: engagement, queues: [queue], rules: rules, glass: CardsOnGlass(), presses: presses, screen: nil)
        let (readers, logs) = (readers, logs)
        var logger = Logger(label: "touch-test", factory: { _ in DiscardingLogHandler() })
        logger.logLevel = .critical
        _ = logs
        let kept = await keeping(queue, arbiter)
        service = Service.Touch(effects: effects, display: MockDisplay(size: PixelSize(width: 1280, height: 400), clock: clock), clock: clock,
                                config: touch, makeReader: { settings, geometry, gesture, _, _ in
                                    let reader = ScriptedTouchReader(settings: settings, geometry: geometry, device: device, gesture: gesture)
                                    readers.withLock { $0.append(reader) }
                                    return reader
                                }, keeping: kept, logger: logger)
        try await service.start(Service.Touch.Section(touch: touch, rotation: .none))
    }

    var reader: ScriptedTouchReader { readers.withLock { $0.last! } }

    /// Lets the queue's tasks run and its time pass, a poll interval at a time, until `condition`
    /// holds (bounded: a broken queue fails the test rather than hang it).
    func settle(_ what: String, step: Duration = .milliseconds(50), _ condition: @Sendable () async -> Bool) async {
        for _ in 0..<400 {
            if await condition() { return }
            clock.advance(by: step)
            for _ in 0..<20 { await Task.yield() }
        }
        Issue.record("never happened: \(what)")
    }

    func kinds(of id: NookActivityID) -> [String] { recorder.kinds(of: id).map(\.name) }

    /// `activity` enqueued and on the glass (slid in).
    func onGlass(_ activity: NookActivity) async {
        _ = await queue.enqueue(activity)
        await settle("\(activity.title) on the glass") { await self.queue.snapshot().currentPhase == .presented }
    }
}

@Suite("T2 what each touch gesture does in nookd")
struct TouchTests {
    let point = TouchPoint(x: 640, y: 200)

    @Test func t2_aFingerDownHoldsTheQueueAndLiftingItLetsTheWaitingCardShow() async throws {
        let nook = try await TouchHarness()
        nook.reader.send(.down(point))
        #expect(nook.engagement.isEngaged)
        let card = NookActivity(title: "Waits for the finger")
        _ = await nook.queue.enqueue(card)
        await nook.settle("the queue parked") { await nook.queue.snapshot().parkReason == .engaged }
        nook.clock.advance(by: .seconds(5))
        #expect(!nook.kinds(of: card.id).contains("animateIn"), "no claim while the finger is down (Q6)")
        nook.reader.send(.up(cancelled: false))
        #expect(!nook.engagement.isEngaged)
        await nook.settle("the card slides in once the finger lifts") { nook.kinds(of: card.id).contains("animateIn") }
        #expect(nook.service.status()?.lastGesture == "up")
    }

    /// However a gesture ends (cancelled by the reader, the service stopping, touch turned off
    /// at a reload), the queue is not left held.
    @Test func t2_everyWayAGestureCanEndLetsTheQueueGo() async throws {
        let nook = try await TouchHarness()
        nook.reader.send(.down(point), .drag(point, dx: 30))
        nook.reader.send(.up(cancelled: true))
        #expect(!nook.engagement.isEngaged)
        #expect(nook.service.status()?.lastGesture == "cancelled")

        nook.reader.send(.down(point))
        var off = TouchConfig()
        off.enabled = false
        await nook.service.apply(Service.Touch.Section(touch: off, rotation: .none))
        #expect(!nook.engagement.isEngaged, "touch turned off with a finger down")
        #expect(!nook.reader.isRunning)
        #expect(nook.service.status() == nil, "off: no touch member in status")

        await nook.service.apply(Service.Touch.Section(touch: TouchConfig(), rotation: .none))
        #expect(nook.reader.isRunning, "turned on again at a reload")
        nook.reader.send(.down(point))
        await nook.service.apply(Service.Touch.Section(touch: TouchConfig(), rotation: .half))
        #expect(!nook.engagement.isEngaged, "the reader restarted for a new rotation lets the finger go")
        #expect(nook.reader.geometry.rotation == .half && nook.reader.isRunning)

        nook.reader.send(.down(point))
        await nook.service.stop()
        #expect(!nook.engagement.isEngaged, "nookd stopping with a finger down")
        #expect(!nook.reader.isRunning)
    }

    @Test func t2_e3_aTapInvokesTheDefaultActionOfTheCardOnTheGlass() async throws {
        let nook = try await TouchHarness()
        let presses = nook.presses.subscribe()
        let mail = NookActivity(title: "Mail", dwell: .seconds(30), hasAction: true)
        await nook.onGlass(mail)
        nook.reader.send(.down(point), .tap(point), .up(cancelled: false))
        await nook.settle("the action invoked") { nook.kinds(of: mail.id).contains("invoked") }
        #expect(!nook.engagement.isOpen, "the tap was the card's, the nook did not open")
        var iterator = presses.makeAsyncIterator()
        #expect(await iterator.next() == InputMessage(input: .open, source: "touch", taken: true))
    }

    /// On a card without an action a tap opens the nook (the next cards wait while it is read);
    /// on the idle glass a tap only closes it: a touch there never holds the queue by itself.
    @Test func t2_aTapOnACardWithoutAnActionOpensTheNookAndATapOnTheIdleGlassOnlyCloses() async throws {
        let nook = try await TouchHarness()
        nook.reader.send(.down(point), .tap(point), .up(cancelled: false))
        #expect(!nook.engagement.isEngaged, "a tap on the idle glass does not open the nook")
        let plain = NookActivity(title: "Read me", dwell: .seconds(2))
        await nook.onGlass(plain)
        nook.reader.send(.down(point), .tap(point), .up(cancelled: false))
        #expect(nook.engagement.isOpen && nook.engagement.isEngaged, "open, as the open button's press")
        #expect(nook.service.status()?.open == true)
        nook.reader.send(.down(point), .tap(point), .up(cancelled: false))
        #expect(!nook.engagement.isEngaged, "a second tap closes it")
    }

    /// A brush of the panel on a card must not hold every later card: the nook a tap opened
    /// closes when the card it was opened on leaves the glass.
    @Test func t2_q6_theNookATapOpenedClosesWhenItsCardLeavesTheGlass() async throws {
        let nook = try await TouchHarness()
        let plain = NookActivity(title: "Read me", dwell: .seconds(2))
        await nook.onGlass(plain)
        nook.reader.send(.down(point), .tap(point), .up(cancelled: false))
        #expect(nook.engagement.isOpen)
        let next = NookActivity(title: "Waits while its card is read")
        _ = await nook.queue.enqueue(next)
        #expect(!nook.kinds(of: next.id).contains("animateIn"))
        await nook.settle("the card read ends, the nook closes and the next shows") { nook.kinds(of: next.id).contains("animateIn") }
        #expect(!nook.engagement.isEngaged)
        #expect(nook.service.status()?.open == false)
    }

    @Test func t2_aSwipeDismissesTheCardOnTheGlassBlockersIncluded() async throws {
        let nook = try await TouchHarness()
        let blocker = NookActivity(title: "Door open", presentation: .blocker(timeout: nil))
        await nook.onGlass(blocker)
        nook.reader.send(.down(point), .drag(point, dx: -80), .swipe(point, dx: -160), .up(cancelled: false))
        await nook.settle("dismissed") { nook.kinds(of: blocker.id).contains("hidden") }
        #expect(nook.recorder.events.last { $0.id == blocker.id }?.kind == .hidden(.dismissed))
        #expect(!nook.engagement.isEngaged)
    }

    @Test func t2_u5_aLongPressOnAnIdleDisplayRecallsTheHistory() async throws {
        let nook = try await TouchHarness(history: ["Parcel", "Laundry"])
        nook.reader.send(.down(point), .longPress(point))
        #expect(nook.recall.isActive)
        await nook.settle("the recall's cards") { await nook.recall.queue.pendingCount + ((await nook.recall.queue.current) == nil ? 0 : 1) == 2 }
        nook.reader.send(.up(cancelled: false))
        #expect(!nook.engagement.isEngaged)
    }

    /// A long press on a card ends it now, and the same card comes back after `touch.snooze` on
    /// the service's clock.
    @Test func t2_aLongPressSnoozesTheCardAndItComesBackAfterTheSnooze() async throws {
        var touch = TouchConfig()
        touch.snooze = .seconds(120)
        let nook = try await TouchHarness(history: ["Old"], touch: touch)
        let card = NookActivity(title: "Kettle", presentation: .blocker(timeout: nil))
        await nook.onGlass(card)
        nook.reader.send(.down(point), .longPress(point), .up(cancelled: false))
        #expect(!nook.recall.isActive, "a card on the glass: a snooze, not a recall")
        await nook.settle("snoozed") { nook.kinds(of: card.id).contains("hidden") }
        let ended = nook.clock.now
        #expect(nook.service.status()?.snoozed == 1)
        await nook.settle("nearly back", step: .seconds(1)) { nook.clock.now >= ended + .seconds(110) }
        #expect(nook.kinds(of: card.id).filter { $0 == "enqueued" }.count == 1, "not back before its time")
        await nook.settle("back after the snooze", step: .seconds(1)) { nook.kinds(of: card.id).filter { $0 == "animateIn" }.count == 2 }
        #expect(nook.clock.now >= ended + .seconds(120))
        #expect(nook.service.status()?.snoozed == 0)
        #expect(await nook.queue.snapshot().current?.id == card.id, "the same card, id and all")
    }

    /// nookd's `cancel` of a snoozed card's id (and `cancel-all` of its key) drops the snooze
    /// through this: the sender ended it, so it must not come back.
    @Test func t2_u3_aSnoozedCardItsSenderCancelledDoesNotComeBack() async throws {
        var touch = TouchConfig()
        touch.snooze = .seconds(60)
        let nook = try await TouchHarness(touch: touch)
        let card = NookActivity(title: "Kettle", presentation: .blocker(timeout: nil))
        await nook.onGlass(card)
        nook.reader.send(.down(point), .longPress(point), .up(cancelled: false))
        await nook.settle("snoozed") { nook.service.status()?.snoozed == 1 }
        #expect(await nook.service.dropSnoozes(where: { $0.id != card.id }).isEmpty, "another id drops nothing")
        #expect(await nook.service.dropSnoozes(where: { $0.id == card.id }) == [card.id])
        #expect(nook.service.status()?.snoozed == 0)
        let ended = nook.clock.now
        await nook.settle("past the snooze", step: .seconds(1)) { nook.clock.now >= ended + .seconds(90) }
        #expect(nook.kinds(of: card.id).filter { $0 == "enqueued" }.count == 1, "cancelled while snoozed: it stays away")
    }

    @Test func t2_q4_aSnoozedCardDoesNotComeBackOverANewerOneWithItsKey() async throws {
        var touch = TouchConfig()
        touch.snooze = .seconds(60)
        let nook = try await TouchHarness(touch: touch)
        let old = NookActivity(coalescingKey: "washer", title: "Washer: 10 min left", presentation: .blocker(timeout: nil))
        await nook.onGlass(old)
        nook.reader.send(.down(point), .longPress(point), .up(cancelled: false))
        await nook.settle("snoozed") { nook.kinds(of: old.id).contains("hidden") }
        let newer = NookActivity(coalescingKey: "washer", title: "Washer: done", presentation: .blocker(timeout: nil))
        _ = await nook.queue.enqueue(newer)
        await nook.settle("the snooze over", step: .seconds(1)) { nook.service.status()?.snoozed == 0 }
        #expect(nook.kinds(of: old.id).filter { $0 == "enqueued" }.count == 1, "the old one stays away")
        #expect(!nook.kinds(of: newer.id).contains("hidden"), "the newer one is not replaced by it")
    }

    /// `touch.enabled` unset: a board without a touchscreen stops looking after the first
    /// seconds (an idle nookd keeps its one wake a minute); `true` keeps looking.
    @Test func t1_unsetTouchStopsLookingWhenThereIsNoTouchscreenAndTrueKeepsLooking() async throws {
        let bare = try await TouchHarness(device: nil)
        #expect(!bare.reader.isRunning, "stopped before the service's start returned")
        #expect(bare.service.status()?.problem == "no touchscreen under /dev/input when nookd started; touch.enabled = true waits for one")
        #expect(bare.service.status()?.device == nil)

        var on = TouchConfig()
        on.enabled = true
        let waiting = try await TouchHarness(touch: on, device: nil)
        waiting.clock.advance(by: .seconds(30))
        for _ in 0..<100 { await Task.yield() }
        #expect(waiting.reader.isRunning, "touch.enabled = true waits for a panel plugged in later")
        #expect(waiting.service.status()?.problem == "no touchscreen under /dev/input")

        let found = try await TouchHarness()
        found.clock.advance(by: .seconds(30))
        for _ in 0..<100 { await Task.yield() }
        #expect(found.reader.isRunning, "found at start: kept, so an unplugged panel is found again")
    }

    /// A key reaches only its own sender's cards (U3): another sender's card with the same key
    /// neither keeps the snoozed one away nor is replaced by it.
    @Test func t2_u3_aSnoozedCardComesBackBesideAnotherSendersCardWithItsKey() async throws {
        var touch = TouchConfig()
        touch.snooze = .seconds(60)
        let nook = try await TouchHarness(touch: touch)
        let mine = NookActivity(coalescingKey: "door", title: "Door: open", presentation: .blocker(timeout: nil),
                                sender: NookSender(uid: 1000, pid: 10))
        await nook.onGlass(mine)
        nook.reader.send(.down(point), .longPress(point), .up(cancelled: false))
        await nook.settle("snoozed") { nook.kinds(of: mine.id).contains("hidden") }
        let theirs = NookActivity(coalescingKey: "door", title: "Door (theirs)", presentation: .blocker(timeout: nil),
                                  sender: NookSender(uid: 2000, pid: 20))
        _ = await nook.queue.enqueue(theirs)
        await nook.settle("the snooze over", step: .seconds(1)) { nook.service.status()?.snoozed == 0 }
        await nook.settle("mine back") { nook.kinds(of: mine.id).filter { $0 == "enqueued" }.count == 2 }
        #expect(!nook.kinds(of: theirs.id).contains("hidden"), "theirs is not coalesced away by mine")
    }

    @Test func t2_theSnoozeKeyAppliesAtAReloadWithoutRestartingTheReader() async throws {
        let nook = try await TouchHarness()
        let first = nook.reader
        var touch = TouchConfig()
        touch.snooze = .seconds(3600)
        await nook.service.apply(Service.Touch.Section(touch: touch, rotation: .none))
        #expect(nook.reader === first && first.isRunning)
        touch.swipeFraction = 0.2
        await nook.service.apply(Service.Touch.Section(touch: touch, rotation: .none))
        #expect(nook.reader !== first && !first.isRunning && nook.reader.settings.swipeFraction == 0.2)
    }

    @Test func t1_touchSettingsAreReadAndBadOnesAreErrorsNamingTheKey() throws {
        func load(_ text: String) throws(ConfigError) -> DaemonConfig {
            try DaemonConfig(reading: ConfigReader(try ConfigDocument(parsing: text, source: "nook.toml")))
        }
        let config = try load("""
            [touch]
            device = "Goodix Capacitive TouchScreen"
            swipe_fraction = 0.15
            long_press_ms = 800
            calibration = [0, 1, 0, -1, 0, 1]
            swap_axes = true
            invert_y = true
            snooze = "1h"
            """)
        #expect(config.touch.device == "Goodix Capacitive TouchScreen" && config.touch.swipeFraction == 0.15)
        #expect(config.touch.longPress == .milliseconds(800) && config.touch.calibration == [0, 1, 0, -1, 0, 1])
        #expect(config.touch.swapAxes && !config.touch.invertX && config.touch.invertY && config.touch.snooze == .seconds(3600))
        #expect(try load("").touch == TouchConfig(), "defaults")
        #expect(TouchConfig().enabled == nil && TouchConfig().snooze == .seconds(600) && TouchConfig().longPress == .milliseconds(600))

        let bad: [(String, String)] = [
            ("swipe_fraction = 2", "nook.toml:2: touch.swipe_fraction: must be from 0.02 to 0.9, got 2.0"),
            ("long_press_ms = 50", "nook.toml:2: touch.long_press_ms: must be from 200 to 5000, got 50"),
            ("calibration = [1, 0, 0]", "nook.toml:2: touch.calibration: must be six numbers"),
            ("calibration = [1, 0, 0, 2, 0, 0]", "nook.toml:2: touch.calibration: maps every touch onto one line"),
            ("calibration = \"1 0 0 0 1 0\"", "nook.toml:2: touch.calibration: must be an array of numbers"),
            ("snooze = \"10\"", "nook.toml:2: touch.snooze: '10' has no unit; must be a duration of whole seconds from 1m to 24h, such as 10m, 90s or 1.5h"),
            ("snooze = \"5s\"", "nook.toml:2: touch.snooze: '5s' is less than 1m; must be a duration of whole seconds from 1m to 24h"),
            ("device = \"\"", "nook.toml:2: touch.device: must name a device"),
            ("enabled = \"yes\"", "nook.toml:2: touch.enabled: must be true or false"),
            ("swipe = 0.1", "nook.toml:2: touch.swipe: is not a known setting"),
        ]
        for (line, message) in bad {
            do {
                _ = try load("[touch]\n\(line)\n")
                Issue.record("accepted \(line)")
            } catch {
                #expect(error.description.hasPrefix(message), "\(line): \(error)")
            }
        }
    }
}
