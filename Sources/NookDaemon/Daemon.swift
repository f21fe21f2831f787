#if canImport(Glibc)
import Glibc
#endif
import Logging
import NookActivities
import NookConfig
import NookDisplay
import NookInput
import NookProtocol
import NookRender
import NookSystem
import Synchronization

/// A reason nookd cannot start, with what to do about it.
public struct DaemonError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// nookd: one display, one screen, the arbiter, one queue per module, the engagement inputs
/// and the socket (N1, N2, C1–C4, D4). `run()` serves until SIGTERM or SIGINT, then quiesces
/// every queue, restores the display and returns.
public final class Daemon: Sendable {
    let logger: Logger
    let clock: any NookClock
    let engagement = NookEngagement()
    /// Presses of the open and dismiss inputs, for `inputs` streams (E8).
    let inputs = InputBroadcast()
    /// The `press` operation's own open toggle (`debug.press_inputs`); engagement observers
    /// run under it, and none of them presses.
    let pressedOpen = Locked(false)
    let arbiter: NookSurfaceArbiter
    /// Quiet hours (Z1): the arbiter's gate, and which pending priorities end as `suppressed`.
    let quiet: NookQuietHours
    let modules: [NookModuleID]
    let queues: [NookModuleID: NookActivityQueue]
    let display: any DisplayBackend
    /// Z2: the frames' dimmer, with `[brightness]` (used where there is no backlight).
    let dimmer: DimmingDisplay?
    let backendName: String
    let screen: DaemonScreen
    /// Unfinished activities on disk; nil keeps them in memory only.
    let journal: ActivityJournal?
    /// Who may act on whose activities (U3); read again, group database too, at each reload.
    var ownership: OwnershipPolicy { ownershipPolicy.withLock { $0 } }
    private let ownershipPolicy: Locked<OwnershipPolicy>
    /// Every ended activity (U4), on disk beside the journal unless `history.path` says otherwise.
    let history: ActivityHistory
    /// U5's recall gesture: the newest history entries on the glass after a long press of open.
    let recall: RecallService
    private let frameWriter: FrameWriter?
    private let configPath: String?
    private let overrides: @Sendable (inout DaemonConfig) -> Void
    let state: Locked<State>
    /// Z2: the brightness levels (backlight or dimmed frames), with a `[brightness]` table.
    let brightness = Locked<BrightnessService?>(nil)
    /// Z3: set when an input reports presence.
    let presence = Locked<PresenceService?>(nil)
    /// Ids of enqueue requests between their duplicate check and their enqueue.
    let idsBeingEnqueued = Locked<Set<NookActivityID>>([])
    /// Changes of what `status` reports that no activity event tells (suspend, home, focus;
    /// engagement has its own observers): each `watch` stream sends them as `status` events.
    let statusChanges = NookObserverList<StatusChangeMessage.Change>()
    private let reloadRequests = ReloadRequests()
    /// Whether the open input's press invokes a card's action (E3) or opens the nook.
    let actionCards = ActionCards()
    /// The connection whose glance, now the home, is a menu (E8: LCDproc's server menu): the
    /// open input's presses are then the menu's and do not toggle the nook open. Nil: none.
    let menuOnGlance = Locked<MenuClaim?>(nil)
    /// The connections a task already watches to end their menu claim when they close.
    let menuClaimWatched = Locked<Set<ObjectIdentifier>>([])

    /// A menu's hold on the open button, renewed by each menu glance from its connection. It
    /// lapses `lease` after the last one, so a bridge that stopped (SIGSTOP, hung) or a client
    /// that sent one menu glance and went quiet cannot leave the open button dead.
    struct MenuClaim: Sendable {
        static let lease: Duration = .seconds(10)
        var owner: ObjectIdentifier
        var renewed: Duration

        init(owner: ObjectIdentifier) { (self.owner, renewed) = (owner, MonotonicClock.now) }

        var isLive: Bool { MonotonicClock.now - renewed < Self.lease }
    }

    /// Whether a press of open is a live menu's Enter rather than the nook's toggle.
    var menuTakesOpen: Bool { menuOnGlance.withLock { $0?.isLive == true } }

    struct State {
        var config: DaemonConfig
        var server: SocketServer?
        var gpio: GPIOInputs?
        var proximity: ProximitySensor?
    }

    private let stopRequested = Latch()

    /// - Parameters:
    ///   - configPath: the file SIGHUP reloads (nil: nothing to reload).
    ///   - overrides: the command-line flags, applied over the file at start and at each reload.
    public init(config: DaemonConfig, configPath: String?, overrides: @escaping @Sendable (inout DaemonConfig) -> Void = { _ in },
                logger: Logger, clock: any NookClock = NookSystemClock()) throws(DaemonError) {
        self.logger = logger
        self.clock = clock
        // An id for every enqueue that brings none: 4 KiB of randomness per getrandom(2) call,
        // not 8 bytes (see IDRandomness).
        IDRandomness.install(fill: SystemRandom.fill)
        self.configPath = configPath
        self.overrides = overrides
        modules = config.modules
        arbiter = NookSurfaceArbiter(foreground: config.modules[0], clock: clock)
        quiet = NookQuietHours(schedule: config.quiet.schedule, policy: config.quiet.policy, localTime: QuietConfig.systemLocalTime)
        arbiter.setGate { [quiet] in quiet.admits($0) }
        var queues: [NookModuleID: NookActivityQueue] = [:]
        for module in config.modules {
            // The screen reports each slide-in's end: a card's dwell counts from when it is
            // really on the glass (Q13), however busy the display; 2 s bounds a stuck one.
            let queue = NookActivityQueue(clock: clock, engagement: engagement,
                                          configuration: .init(pollInterval: config.pollInterval, capacity: config.capacity,
                                                               presenterTimeout: .seconds(2)))
            queues[module] = queue
            arbiter.register(NookQueueModule(id: module, queue: queue))
        }
        self.queues = queues

        let selection = try DisplaySelection.choose(config, clock: clock, logger: logger)
        var chosen = selection.display
        if let trigger = config.hangDisplayFile {
            logger.warning("debug.hang_display_file is set: the display loop hangs when \(trigger) appears (a test of the watchdog, W1)")
            chosen = HangingDisplay(chosen, triggerPath: trigger, warn: { logger.warning("\($0)") })
        }
        // Z2: frames pass through untouched unless brightness without a backlight dims them.
        dimmer = config.brightnessConfigured ? DimmingDisplay(chosen) : nil
        display = dimmer ?? chosen
        backendName = selection.name
        frameWriter = selection.writer
        // R6: the configured turn, then the one the panel's orientation property asks for.
        let panelTurn = display.panelOrientation
        let settings = NookScreen.Settings(theme: config.theme, rotation: config.rotation.then(panelTurn), home: config.home, blankAfter: config.blankAfter)
        if config.backend.isLED {
            // L3: LEDs get the pixel renderer; the cairo compositor is never made for them.
            if config.rotation != .none, DaemonScreen.ledRotation(config.rotation, size: display.mode.size) == .none {
                logger.notice("display.rotation does not turn an LED strip; say which end comes first with [led] origin instead")
            }
            screen = DaemonScreen(display: display, clock: clock, settings: settings, scrollSpeed: config.led.scrollSpeed,
                                  onWarning: { logger.warning("\($0)") })
        } else {
            FrameMemory.keepFramesAsOwnMappings()
            screen = DaemonScreen(cards: NookScreen(display: display, clock: clock, settings: settings, onWarning: { logger.warning("\($0)") }),
                                  settings: settings)
        }
        dimmer?.redraw { [screen] in await screen.redisplay() }
        // Once the libraries and the fonts (loaded for the first home frame) are mapped, before
        // the daemon runs most of its code: the text it never runs stays unmapped (issue 19).
        FaultAround.disableForReadOnlyFileMappings()
        ownershipPolicy = Locked(try OwnershipPolicy(adminGroup: config.adminGroup))
        journal = config.journalPath.map { ActivityJournal(path: $0, mode: config.journalSync, warn: { logger.warning("\($0)") }) }
        history = ActivityHistory(path: config.historyPath, bounds: config.historyBounds, warn: { logger.warning("\($0)") })
        let drawing = screen
        recall = RecallService(settings: config.recall, clock: clock, history: history, fit: { drawing.fitted($0) }, log: { logger.info("\($0)") })
        state = Locked(State(config: config))
    }

    // MARK: Running

    /// Serves until `requestStop()` (SIGTERM/SIGINT), then shuts down cleanly (N2).
    ///
    /// Services start in the order below, each registering how it stops; on the way out the
    /// queues quiesce first (the glass is released through the normal end path), then every
    /// service stops in the reverse order of its start, the display last. A start that fails
    /// half-way stops what had started, so the display is restored on every path.
    ///
    /// - Parameter handlingSignals: install nookd's SIGTERM/SIGINT/SIGHUP handling (the
    ///   process's dispositions); embedders that handle signals themselves pass false.
    public func run(handlingSignals: Bool = true) async throws(DaemonError) {
        let config = state.withLock { $0.config }
        var services = ServiceStack(logger: logger)
        // Last to stop: what the screen showed before nookd is put back.
        services.started("display") { [display, frameWriter] in
            await frameWriter?.finish()
            display.restore()
        }
        // Before anything is read or written: a journal or history path that is not nookd's
        // (a device, a FIFO, a link, someone else's file) is an error, never replaced.
        let sharing = journal.flatMap { journal in history.path.flatMap { DurableFile.sharing(journal: journal.path, history: $0) } }
        if let refusal = sharing ?? journal?.refusal() ?? history.refusal() {
            await services.stopAll()
            throw DaemonError(refusal)
        }
        if handlingSignals {
            // Before the socket exists: a client (or systemd) that sees nookd ready can stop it.
            let signals: SignalWatcher
            do {
                signals = try SignalWatcher(logger: logger, stop: { [weak self] in self?.requestStop() },
                                            reload: { [weak self] in Task { await self?.reload() } })
            } catch {
                await services.stopAll()
                throw error
            }
            services.started("signal handling") { signals.cancel() }
        }
        for module in modules {
            await queues[module]!.bind(to: arbiter, moduleID: module)
        }
        // W1: systemd's watchdog is pinged from the loops that draw the queues' events, so a
        // loop stuck in a present stops the pings and systemd restarts nookd.
        let heartbeat = Watchdog.heartbeat(clock: clock)
        if let heartbeat { logger.info("systemd watchdog: pinging every \(heartbeat.interval) from the display loops") }
        let feeders = modules.map { module in
            // Subscribed here, not inside the task: the journal's restored activities follow at once.
            let queue = queues[module]!
            let events = queue.events(where: NookScreen.draws)
            return Task { [screen] in await screen.run(events, reportingTo: queue, heartbeat: heartbeat) }
        }
        services.started("screen") { feeders.forEach { $0.cancel() } }
        // Every event in the log only when asked for: at info a busy daemon should not pay for it.
        let logTask = Task { [logger, queues, modules] in
            guard logger.logLevel <= .debug else { return }
            await withTaskGroup(of: Void.self) { group in
                for module in modules {
                    group.addTask {
                        for await event in queues[module]!.events() {
                            logger.debug("\(event.kind.name) \(event.id) \"\(LogText.short(event.activity.title))\"", metadata: ["module": "\(module)"])
                        }
                    }
                }
            }
        }
        services.started("event log") { logTask.cancel() }
        let actionObservations = modules.map { module in
            queues[module]!.observe { [actionCards] in actionCards.observe($0) }
        }
        services.started("action cards") { actionObservations.forEach { $0.cancel() } }
        // Before the journal restores anything: a restored card makes the display busy.
        let stopRecall = await startRecall(heartbeat: heartbeat)
        services.started("recall") { stopRecall() }
        // Before the journal restores anything: a restored card's end is recorded like any other.
        let historyObservations = startHistory()
        services.started("history") { [history, logger] in
            // Bounded like the journal's last sync: N2's two seconds hold on a stalled disk.
            if await !history.finish(within: .milliseconds(100)) {
                logger.warning("history: the disk did not confirm the last entries within 100 ms; stopping without waiting for it")
            }
            historyObservations.forEach { $0.cancel() }
        }
        let journalObservations = await startJournal()
        services.started("journal") { [journal, logger] in
            // Everything the queues recorded, up to their last event, is on disk before nookd exits.
            // Bounded: with the quiesce's 1.5 s this keeps the exit within N2's 2 s even when
            // the disk stalls (the records are then only as safe as the page cache keeps them).
            if let journal, await !journal.finish(within: .milliseconds(400)) {
                logger.warning("journal: the disk did not confirm the last records within 400 ms; stopping without waiting for it")
            }
            journalObservations.forEach { $0.cancel() }
        }
        // An idle display keeps home only: the spare frames of the last card go after 10 s.
        await screen.releaseFrames(after: .seconds(10))
        if config.brightnessConfigured, let dimmer {
            var output: any BrightnessOutput = dimmer
            if let name = config.backlightName {
                do {
                    let backlight = try Backlight(name: name, root: config.brightnessRoot)
                    output = backlight
                    logger.info("brightness through \(backlight.directory) (max \(backlight.maximum))")
                } catch {
                    // Like a missing sensor (I4): a warning, and the frames are dimmed instead.
                    logger.warning("brightness: \(error); dimming the drawn frames instead")
                }
            } else {
                logger.info("brightness: no backlight configured, dimming the drawn frames")
            }
            let service = BrightnessService(backlight: output, levels: config.brightnessLevels, fade: config.brightnessFade,
                                            clock: clock, ambient: config.ambient?.curve, warn: { [logger] in logger.warning("\($0)") })
            // Z2: the room's light before the first level, so a dark room does not start bright
            // and fade down (one read; a sensor that cannot answer leaves the fixed levels).
            let sensor = config.ambient.map(ambientLightSensor)
            if let lux = await sensor?.firstReading() { await service.setAmbient(lux: lux) }
            await service.setQuiet(quiet.isQuiet)
            brightness.withLock { $0 = service }
            if let ambient = config.ambient, let sensor {
                let stop = startAmbientLight(ambient, sensor: sensor, brightness: service)
                services.started("ambient light") { stop() }
            }
            // The recall's cards (U5) light the panel like any card.
            let relays = (modules.map { queues[$0]! } + [recall.queue]).map { queue in
                let events = queue.events(where: BrightnessService.matters)
                return Task { for await event in events { await service.observe(event) } }
            }
            services.started("brightness") { relays.forEach { $0.cancel() } }
        }
        if !config.escalation.steps.isEmpty {
            let escalation = EscalationService(settings: config.escalation, clock: clock, quiet: quiet, logger: logger,
                                               brighter: { [weak self] in await self?.brightness.withLock { $0 }?.boost() },
                                               pulse: { [weak self] in await self?.brightness.withLock { $0 }?.pulse() })
            let relays = modules.map { module in
                let events = queues[module]!.events(where: EscalationService.matters)
                return Task { for await event in events { await escalation.observe(event) } }
            }
            services.started("escalation") { relays.forEach { $0.cancel() } }
        }
        let quietTask = Task { [weak self] in await self?.runQuietHours() }
        services.started("quiet hours") { quietTask.cancel() }
        await screen.showHome()
        let clockTask = Task { [screen] in await screen.runClock() }
        services.started("home clock") { clockTask.cancel() }
        // Q15: an unplugged panel suspends every queue (nothing is shown to nobody); plugged
        // back in, they resume and the card that was cut off is shown again.
        let displayWatch = Task { [display, queues, recall, logger, screen, brightness] in
            await DisplayAvailability.relay(from: display, to: Array(queues.values) + [recall.queue], screen: screen, logger: logger,
                                            brightness: { brightness.withLock { $0 } })
        }
        services.started("display watch") { displayWatch.cancel() }
        if let settings = config.presence {
            let stop = await startPresence(settings)
            services.started("presence") { stop() }
        }
        // Engagement inputs (I1–I4): a missing sensor is a warning inside the sensor, never fatal.
        if let proximity = config.proximity {
            let sensor = ProximitySensor(settings: proximity, engagement: engagement, clock: clock,
                                         warn: { [logger] in logger.warning("\($0)") })
            state.withLock { $0.proximity = sensor }
            let sensorTask = Task { await sensor.run() }
            services.started("proximity") { sensorTask.cancel() }
            let presence = proximity.presenceThreshold.map { ", presence from \($0)" } ?? ""
            logger.info("reading proximity from \(proximity.label) (threshold \(proximity.threshold)\(presence), hysteresis \(proximity.hysteresis), in the units in_proximity_raw prints)")
        }
        if let gpio = startGPIO() {
            services.started("gpio") { gpio.stop() }
        }
        if config.proximity == nil && config.gpioLines.isEmpty {
            logger.notice("no engagement inputs configured: activities never wait for a user")
        }

        let server: SocketServer
        do {
            server = try startServer(config)
        } catch {
            await services.stopAll()
            throw error
        }
        services.started("socket") { server.stop() }
        state.withLock { $0.server = server }
        logger.info("nookd ready", metadata: [
            "socket": "\(config.socketPath)", "display": "\(display.mode)", "backend": "\(backendName)",
            "modules": "\(modules.map(\.rawValue).joined(separator: ","))",
        ])
        SystemdNotifier.notify("READY=1\nSTATUS=serving on \(config.socketPath)")

        await stopRequested.wait()
        logger.info("stopping: quiescing queues and restoring the display")
        SystemdNotifier.notify("STOPPING=1")
        await quiesceAll(within: .milliseconds(1500))
        await services.stopAll()
        logger.info("nookd stopped")
    }

    /// The socket (C1, C4), serving requests through `handle`.
    private func startServer(_ config: DaemonConfig) throws(DaemonError) -> SocketServer {
        do {
            let policy = try AccessPolicy(uids: config.allowedUIDs, groups: config.allowedGroups)
            let server = try SocketServer(
                path: config.socketPath, mode: config.socketMode, group: config.socketGroup, policy: policy,
                maximumLine: NookProtocol.maximumLineBytes, logger: logger, maximumConnections: config.maxConnections,
                limits: config.connectionLimits, privileged: { [ownership] peer in ownership.isAdmin(peer) },
                handler: { [weak self] connection, lines in await self?.handle(connection, batch: lines) },
                refusal: { connection, problem in
                    if case .tooLong(let bytes) = problem {
                        connection.send(ResponseLine.failure(id: nil, error: ProtocolError(
                            .lineTooLong, "a request line is limited to \(NookProtocol.maximumLineBytes) bytes; this one has \(bytes) or more")).encoded())
                    }
                },
                // An answer that depends on journal records leaves once they are settled (J1, J2).
                settle: { [journal] mark in await journal?.settle(through: mark) ?? nil })
            try server.start()
            return server
        } catch {
            throw DaemonError("cannot serve on \(config.socketPath): \(error)")
        }
    }

    /// Asks `run()` to shut down; safe from any thread (signal handlers).
    public func requestStop() {
        stopRequested.open()
    }

    /// Quiesces every queue at once, giving up after `bound` so a stuck queue cannot hold the
    /// exit past the 2 s of N2 (the display is restored either way).
    private func quiesceAll(within bound: Duration) async {
        let done = Atomic<Bool>(false)
        let all = Task { [queues, recall] in
            await withTaskGroup(of: Void.self) { group in
                for queue in queues.values { group.addTask { await queue.quiesce() } }
                group.addTask { await recall.queue.quiesce() }
            }
            done.store(true, ordering: .releasing)
        }
        let deadline = ContinuousClock.now + bound
        while !done.load(ordering: .acquiring), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if !done.load(ordering: .acquiring) {
            logger.warning("queues did not quiesce within \(bound); restoring the display anyway")
            all.cancel()
        }
    }

    /// SIGHUP (N1): re-reads the config file; theme, home content and rotation apply at once,
    /// queued activities are kept. Settings that need a restart are named in the log. While a
    /// reload runs, another is not started beside it: it runs once more when it ends, so the
    /// file as it was at the last request is what applies.
    public func reload() async {
        guard reloadRequests.begin() else { return }
        repeat { await reloadOnce() } while reloadRequests.end()
    }

    private func reloadOnce() async {
        guard let configPath else {
            logger.notice("SIGHUP: nookd was started without --config; nothing to reload")
            return
        }
        var fresh: DaemonConfig
        do {
            fresh = try DaemonConfig.load(path: configPath)
        } catch {
            logger.error("SIGHUP: keeping the running config, the file has an error: \(error)")
            return
        }
        overrides(&fresh)
        // The admin group, and who is in it, as the group database says now: a user taken out
        // of the group loses its rights at this reload. A group that is gone refuses the whole
        // file, as it would at start, rather than leave the old admins in place unannounced.
        let policy: OwnershipPolicy
        do {
            policy = try OwnershipPolicy(adminGroup: fresh.adminGroup)
        } catch {
            logger.error("SIGHUP: keeping the running config, the file has an error: \(error)")
            return
        }
        ownershipPolicy.withLock { $0 = policy }
        let old = state.withLock { state -> DaemonConfig in
            defer { state.config = fresh }
            return state.config
        }
        quiet.configure(schedule: fresh.quiet.schedule, policy: fresh.quiet.policy)
        await endSuppressed()
        history.setBounds(fresh.historyBounds)
        recall.setSettings(fresh.recall)
        let panelTurn = display.panelOrientation
        await screen.apply(.init(theme: fresh.theme, rotation: fresh.rotation.then(panelTurn), home: fresh.home, blankAfter: fresh.blankAfter))
        menuOnGlance.withLock { $0 = nil }
        if fresh.home != old.home { statusChanges.notify(.home) }
        var needsRestart: [String] = []
        if fresh.socketPath != old.socketPath || fresh.socketGroup != old.socketGroup || fresh.socketMode != old.socketMode { needsRestart.append("daemon.socket*") }
        if fresh.maxConnections != old.maxConnections || fresh.connectionLimits != old.connectionLimits {
            // The socket server takes them at start.
            needsRestart.append("daemon.max_connections/max_connections_per_user/partial_line_timeout/idle_timeout/max_buffered_bytes")
        }
        if fresh.modules != old.modules { needsRestart.append("queue.modules") }
        if fresh.capacity != old.capacity || fresh.pollInterval != old.pollInterval { needsRestart.append("queue.capacity/poll_interval_ms") }
        if fresh.backend != old.backend || fresh.mockSize != old.mockSize { needsRestart.append("display.backend/size") }
        if fresh.drmCard != old.drmCard || fresh.drmConnector != old.drmConnector || fresh.drmMode != old.drmMode
            || fresh.drmPageFlip != old.drmPageFlip || fresh.fbdevPath != old.fbdevPath {
            needsRestart.append("display.card/connector/mode/page_flip/fbdev")
        }
        if fresh.led != old.led { needsRestart.append("[led]") }
        if fresh.backend.isLED, DaemonScreen.ledRotation(fresh.rotation, size: display.mode.size) != DaemonScreen.ledRotation(old.rotation, size: display.mode.size) {
            needsRestart.append("display.rotation (LED matrix)")
        }
        // The buttons' long press is set on the GPIO lines at start (the socket's `press` follows
        // the new hold at once): name the key rather than the [gpio.*] tables it was copied into.
        if fresh.recall.hold != old.recall.hold, !fresh.gpioLines.isEmpty { needsRestart.append("history.recall_hold_ms (for the GPIO buttons)") }
        if fresh.gpioLines.map({ $0.withoutLongPress }) != old.gpioLines.map({ $0.withoutLongPress }) || fresh.proximity != old.proximity {
            needsRestart.append("[gpio.*]/[proximity]")
        }
        if fresh.journalPath != old.journalPath { needsRestart.append("daemon.journal") }
        if fresh.journalSync != old.journalSync { needsRestart.append("journal.sync") }
        if fresh.historyPath != old.historyPath { needsRestart.append("history.path") }
        if fresh.hangDisplayFile != old.hangDisplayFile { needsRestart.append("debug.hang_display_file") }
        if fresh.backlightName != old.backlightName || fresh.brightnessConfigured != old.brightnessConfigured || fresh.brightnessRoot != old.brightnessRoot || fresh.brightnessLevels != old.brightnessLevels
            || fresh.brightnessFade != old.brightnessFade || fresh.ambient != old.ambient { needsRestart.append("[brightness]") }
        if fresh.escalation != old.escalation { needsRestart.append("[escalation]") }
        if fresh.presence != old.presence { needsRestart.append("[presence]") }
        let restartNote = needsRestart.isEmpty ? "" : "; restart nookd to apply \(needsRestart.joined(separator: ", "))"
        logger.notice("SIGHUP: reloaded \(configPath) (theme, home, rotation, quiet hours, history bounds, recall and the admin group applied)\(restartNote)")
    }
}
