#if canImport(Glibc)
import Glibc
#endif
import NookLogging
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

/// nookd: the arbiter and the services around it, the display, the screen and the queues among
/// them (N1, N2, C1–C4, D4): ``DaemonParts`` lists them in start order and builds them, and
/// this type holds what they share. `run()` serves until SIGTERM or SIGINT, then quiesces every
/// service with cards on the glass, stops the services in reverse order (the display last) and
/// returns.
public final class Daemon: Sendable {
    let logger: Logger
    let clock: any NookClock
    let engagement = NookEngagement()
    /// Presses of the open and dismiss inputs, for `inputs` streams (E8).
    let inputs = InputBroadcast()
    /// LaMetric icon ids found in no icon directory, for `icons-wanted` streams (M3).
    let iconWants: IconWants
    /// The `press` operation's own open toggle (`debug.press_inputs`), a second open button's
    /// (I3); engagement observers run under its lock, and none of them presses.
    let pressToggle: OpenToggle
    let arbiter: NookSurfaceArbiter
    /// Quiet hours (Z1): the arbiter's gate, and which pending priorities end as `suppressed`.
    let quiet: NookQuietHours
    let modules: [NookModuleID]
    /// Every service, by type; ``DaemonParts/startOrder`` says in which order they start.
    let parts: DaemonParts
    /// The file SIGHUP reloads, and the flags applied over it.
    private let source: ConfigSource
    let state: Locked<State>
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
    private let stopRequested = Latch()
    /// Every service has started: a SIGHUP held from the start reloads only then.
    private let servicesStarted = Latch()

    /// One queue per module (C2).
    var queues: [NookModuleID: NookActivityQueue] { parts.queues.byModule }
    var screen: DaemonScreen { parts.screen.screen }
    /// The live view (V1): the glass's generation and, while watched, its newest frame.
    var liveGlass: LiveGlass { parts.screen.liveGlass }
    /// The live view's PNGs, one encoding per generation.
    var livePNGs: LiveFramePNGs { parts.screen.livePNGs }
    var display: any DisplayBackend { parts.display.display }
    var backendName: String { parts.display.backendName }
    /// Unfinished activities on disk; nil keeps them in memory only.
    var journal: ActivityJournal? { parts.journal.journal }
    /// Every ended activity (U4).
    var history: ActivityHistory { parts.history.history }
    /// U5's recall gesture.
    var recall: HistoryRecall { parts.recall.recall }
    /// The apps and their rotation (A1, A2).
    var apps: AppRotation { parts.apps.rotation }
    /// Z2: the brightness levels (backlight or dimmed frames), with a `[brightness]` table.
    var brightness: Locked<BrightnessController?> { parts.brightness.current }
    /// Z3: set when an input reports presence.
    var presence: Locked<PresenceTracker?> { parts.presence.current }
    /// Who may act on whose activities (U3); read again, group database too, at each reload.
    var ownership: OwnershipPolicy { parts.ownership.current }

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

    /// What a press of the inputs does (the socket's `press`): the rules the button and the
    /// panel were given.
    let inputRules: InputRules

    struct State {
        var config: DaemonConfig
        var server: SocketServer?
        var proximity: ProximitySensor?
    }

    private struct ConfigSource: Sendable {
        var path: String?
        var overrides: @Sendable (inout DaemonConfig) -> Void
    }

    /// Builds nookd's parts without starting any; the process-wide set-up around it is
    /// ``NookdProcess/makeDaemon(config:configPath:overrides:logger:)``'s.
    ///
    /// - Parameters:
    ///   - configPath: the file SIGHUP reloads (nil: nothing to reload).
    ///   - overrides: the command-line flags, applied over the file at start and at each reload.
    public init(config: DaemonConfig, configPath: String?, overrides: @escaping @Sendable (inout DaemonConfig) -> Void = { _ in },
                logger: Logger, clock: any NookClock = NookSystemClock()) throws(DaemonError) {
        self.logger = logger
        self.clock = clock
        iconWants = IconWants(clock: clock)
        source = ConfigSource(path: configPath, overrides: overrides)
        pressToggle = OpenToggle(input: "press", engagement: engagement, opensIdle: true)
        modules = config.queues.modules
        arbiter = NookSurfaceArbiter(foreground: config.queues.modules[0], clock: clock)
        quiet = NookQuietHours(schedule: config.quiet.schedule, policy: config.quiet.policy, localTime: QuietConfig.systemLocalTime)
        arbiter.setGate { [quiet] in quiet.admits($0) }
        let state = Locked(State(config: config))
        self.state = state
        let wiring = ServiceWiring(config: config, clock: clock, logger: logger, engagement: engagement, presses: inputs, arbiter: arbiter,
                                   quiet: quiet, actionCards: actionCards, menuOnGlance: menuOnGlance, state: state)
        // Every service, each built from the services it needs or uses, in ``DaemonParts/order``.
        parts = try DaemonParts(wiring)
        inputRules = try wiring.inputRules()
    }

    // MARK: Running

    /// Serves until `requestStop()` (SIGTERM/SIGINT), then shuts down cleanly (N2).
    ///
    /// Services start in ``DaemonParts/startOrder``, each registering how it stops; on the way
    /// out the queues quiesce first (the glass is released through the normal end path), then
    /// every service stops in the reverse order of its start, the display last. A start that
    /// fails half-way stops what had started, so the display is restored on every path.
    ///
    /// - Parameter handlingSignals: install nookd's SIGTERM/SIGINT/SIGHUP handling (the
    ///   process's dispositions); embedders that handle signals themselves pass false.
    public func run(handlingSignals: Bool = true) async throws(DaemonError) {
        let config = state.withLock { $0.config }
        if handlingSignals {
            parts.signals.handle(stop: { [weak self] in self?.requestStop() }, reload: { [weak self] in
                Task { [weak self] in
                    await self?.servicesStarted.wait()
                    // A stop held beside it wins: the services are on their way out.
                    guard self?.stopRequested.isOpen == false else { return }
                    await self?.reload()
                }
            })
        }
        var stopAnnounced: (@Sendable () -> Bool)?
        if handlingSignals { stopAnnounced = Self.stopSignalled }
        let handler: SocketServer.Handler = { [weak self] connection, lines in await self?.handle(connection, batch: lines) }
        parts.socket.serve(handler, stopAnnounced: stopAnnounced)
        let services: [any DaemonService]
        do {
            services = try parts.inStartOrder()
        } catch {
            // The display was opened when nookd was built: put back what it showed.
            await parts.display.stop()
            throw error
        }
        var started = ServiceStack(logger: logger)
        for service in services {
            do {
                try await service.start(with: config)
            } catch {
                await started.stopAll()
                throw error
            }
            started.started(type(of: service).name) { await service.stop() }
        }
        logger.info("nookd ready", metadata: [
            "socket": "\(config.socket.path)", "display": "\(display.mode)", "backend": "\(backendName)",
            "modules": "\(modules.map(\.rawValue).joined(separator: ","))",
        ])
        SystemdNotifier.notify("READY=1\nSTATUS=serving on \(config.socket.path)")
        servicesStarted.open()

        await stopRequested.wait()
        logger.info("stopping: quiescing queues and restoring the display")
        SystemdNotifier.notify("STOPPING=1")
        await quiesceAll(within: .milliseconds(1500))
        await started.stopAll()
        logger.info("nookd stopped")
    }

    /// Whether a stop signal's handler has run (before its relay calls ``requestStop()``).
    @Sendable private static func stopSignalled() -> Bool { SignalRelay.stopSignalled }

    /// Asks `run()` to shut down; safe from any thread (signal handlers).
    public func requestStop() {
        // First: nothing new is taken on while the queues quiesce (the socket's clients are
        // told what of theirs was begun when it closes).
        parts.socket.beginStop()
        stopRequested.open()
    }

    /// Quiesces every service with cards on the glass (``QuiescesAtStop``: the modules' queues,
    /// the recall's, the apps') at once, giving up after `bound` so a stuck queue cannot hold
    /// the exit past the 2 s of N2 (the display is restored either way).
    private func quiesceAll(within bound: Duration) async {
        // Whichever comes first opens `settled`: every queue quiescent, or the bound.
        let settled = Latch()
        let done = Atomic<Bool>(false)
        // Each halts first (the apps' rotation stops turning: as the cards end, no app card
        // comes back after them), then all quiesce at once.
        let quiescing = parts.quiescing
        for part in quiescing { part.halt() }
        let all = Task {
            await withTaskGroup(of: Void.self) { group in
                for part in quiescing { group.addTask { await part.quiesce() } }
            }
            done.store(true, ordering: .releasing)
            settled.open()
        }
        let timeout = Task {
            try? await Task.sleep(for: bound)
            settled.open()
        }
        await settled.wait()
        timeout.cancel()
        if !done.load(ordering: .acquiring) {
            logger.warning("queues did not quiesce within \(bound); restoring the display anyway")
            all.cancel()
        }
    }

    /// SIGHUP (N1): re-reads the config file, and each service applies its changed keys or
    /// names them as needing a restart; queued activities are kept. While a reload runs,
    /// another is not started beside it: it runs once more when it ends, so the file as it was
    /// at the last request is what applies.
    public func reload() async {
        guard reloadRequests.begin() else { return }
        repeat { await reloadOnce() } while reloadRequests.end()
    }

    private func reloadOnce() async {
        guard let configPath = source.path else {
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
        source.overrides(&fresh)
        // Before anything applies: an admin group (or a user a setting names) that is gone
        // refuses the whole file, as it would at start, rather than leave the old admins in
        // place unannounced.
        do {
            try fresh.checkNames()
            try parts.ownership.reread(fresh)
        } catch {
            logger.error("SIGHUP: keeping the running config, the file has an error: \(error)")
            return
        }
        let old = state.withLock { state -> DaemonConfig in
            defer { state.config = fresh }
            return state.config
        }
        // The order was checked at start.
        let services = (try? parts.inStartOrder()) ?? []
        let decision = Self.reloadDecision(services.map { type(of: $0) }, from: old, to: fresh, context: ReloadContext(displaySize: display.mode.size))
        // Every service's apply runs: a theme file's content may have changed under the same key.
        for service in services { await service.apply(config: fresh) }
        menuOnGlance.withLock { $0 = nil }
        if fresh.screen.home != old.screen.home { statusChanges.notify(.home) }
        logger.notice("\(decision.note(reloading: configPath))")
    }

    /// What a reload from `old` to `new` does with each key whose value changed in the file,
    /// as each of `services` decides for its own keys.
    static func reloadDecision(_ services: [any DaemonService.Type], from old: DaemonConfig, to new: DaemonConfig,
                               context: ReloadContext) -> ReloadDecision {
        let changed = old.changedKeys(to: new)
        return services.reduce(ReloadDecision()) { $0 + $1.decide(from: old, to: new, changed: changed, in: context) }
    }
}
