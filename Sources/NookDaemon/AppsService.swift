#if canImport(Glibc)
import Glibc
#endif
import NookLogging
import NookActivities
import NookConfig
import NookProtocol
import NookRender

extension Service {
    /// The apps and their rotation on the idle display (A1, A2). Its queue is on the glass
    /// beside the modules' queues and follows them and the recall's (their cards go first); its display loop beats the systemd
    /// watchdog like theirs (W1). It starts before the journal, which hands it the apps the
    /// last run kept (and before a restored card makes the display busy).
    final class Apps: DaemonService {
        typealias Settings = AppRotation.Settings
        typealias Section = Settings
        static let name = "apps"
        static var needs: [any DaemonService.Type] { [Screen.self, SystemdWatchdog.self, Queues.self, Recall.self] }
        /// The journal keeps the apps and, at its start, hands back the ones the last run kept.
        static var uses: [any DaemonService.Type] { [Journal.self] }
        static let keys = settings.map(\.key)
        static let appliesAtReload = true

        let rotation: AppRotation
        private let arbiter: NookSurfaceArbiter
        private let screen: DaemonScreen
        private let queues: [NookActivityQueue]
        private let watchdog: SystemdWatchdog
        private let stops = StopActions()

        init(_ config: DaemonConfig, clock: any NookClock, engagement: NookEngagement, screen: DaemonScreen, arbiter: NookSurfaceArbiter,
             queues: [NookActivityQueue], watchdog: SystemdWatchdog, logger: Logger) {
            rotation = AppRotation(settings: config.apps, clock: clock, engaged: { engagement.isEngaged }, fit: { screen.fitted($0) },
                                   scrollPass: { screen.scrollPass(of: $0) }, log: { logger.info("\($0)") })
            (self.arbiter, self.screen, self.queues, self.watchdog) = (arbiter, screen, queues, watchdog)
        }

        func start(_ section: Section) async throws(DaemonError) {
            await rotation.bind(to: arbiter)
            let heartbeat = watchdog.heartbeat
            let events = rotation.queue.events(where: NookScreen.draws)
            let feeder = Task { [screen, rotation] in await screen.run(events, reportingTo: rotation.queue, heartbeat: heartbeat) }
            let commands = Task { [rotation] in await rotation.runCommands() }
            let followed = queues.map { queue in queue.observe { [rotation] in rotation.observeModule($0) } }
            stops.add {
                followed.forEach { $0.cancel() }
                commands.cancel()
                feeder.cancel()
            }
        }

        func stop() async { await stops.run() }

        func apply(_ section: Section) async { rotation.setSettings(section) }
    }
}

extension Service.Apps: DeclaresSettings {
    /// AWTRIX's default app duration is 7 s.
    static let duration = Setting<Int>.integer("apps.duration_ms", default: 7000, in: 1000...3_600_000, reload: .applied)
    /// A quarter of the 64 apps nookd keeps: one sender cannot take every slot and lock the others out.
    static let perSender = Setting<Int>.integer("apps.per_sender", default: 16, in: 0...NookApp.Limits.count, reload: .applied)
    /// `[apps.shares]`: a user's own share, over `apps.per_sender` (M6). nook-mqtt is one user
    /// however many of a broker's clients publish apps through it: a house gives it more.
    static let share = Setting<Int?>.integer("apps.shares.*", in: 0...NookApp.Limits.count, reload: .applied, shownDefault: "apps.per_sender")
    static let settings = [duration.declaration, perSender.declaration, share.declaration]

    /// The uid a name of `[apps.shares]` names: a user of the user database, or a uid as a number.
    static func uid(of name: String) -> UInt32? {
        if let user = getpwnam(name) { return user.pointee.pw_uid }
        // (uid_t)-1 is no one's: setuid(2) and chown(2) take it for "unchanged".
        return UInt32(name).flatMap { $0 == .max ? nil : $0 }
    }

    /// The shares of `[apps.shares]` by uid, each with the name the file gave it; a name that is
    /// no user, or a user named twice (by name and by uid), is refused naming the keys.
    static func shareUIDs(_ shares: [String: Int]) throws(DaemonError) -> [UInt32: (limit: Int, name: String)] {
        var byUID: [UInt32: (limit: Int, name: String)] = [:]
        for (name, limit) in shares.sorted(by: { $0.key < $1.key }) {
            guard let uid = uid(of: name) else {
                throw DaemonError("\(share.named(name).key): no user named '\(name)' in the user database (a uid may be given as a number)")
            }
            if let other = byUID[uid] {
                throw DaemonError("\(share.named(name).key): uid \(uid) has a share already, \(share.named(other.name).key); give it one")
            }
            byUID[uid] = (limit, name)
        }
        return byUID
    }
}

extension Service.Apps: OwnsSettings {
    static var member: WritableKeyPath<DaemonConfig, Settings> { \.apps }

    static func read(_ reader: ConfigReader, over settings: Settings, in reading: SettingsReading) throws(ConfigError) -> Settings {
        var apps = settings
        if let duration = try duration.read(reader) { apps.duration = .milliseconds(duration) }
        apps.perSender = try perSender.read(reader) ?? apps.perSender
        let table = String(share.key.dropLast())
        for key in reader.document.entries.map(\.key) where key.hasPrefix(table) {
            let name = String(key.dropFirst(table.count))
            // A deeper table is no user's share: left for the unknown-key check.
            guard !name.contains("."), let limit = try share.named(name).read(reader) else { continue }
            apps.shares[name] = limit
        }
        return apps
    }

    /// A user `[apps.shares]` names that the system does not have is refused, at start and by
    /// `nookd --check`, naming its key.
    static func checkNames(_ settings: Settings) throws(DaemonError) {
        _ = try shareUIDs(settings.shares)
    }
}

extension Service.Apps: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.Apps {
        try checkNames(wiring.config.apps)
        // A recall (U5) is a card the person asked for: the rotation gives way to it as to a module's.
        let recall = try wiring.part(Service.Recall.self)
        let apps = Service.Apps(wiring.config, clock: wiring.clock, engagement: wiring.engagement, screen: try wiring.screen, arbiter: wiring.arbiter,
                                queues: try wiring.moduleQueues + [recall.recall.queue], watchdog: try wiring.part(Service.SystemdWatchdog.self),
                                logger: wiring.logger)
        let journal = try wiring.part(Service.Journal.self)
        apps.rotation.keep(in: journal.journal)
        journal.restoresApps(into: apps.rotation)
        return apps
    }
}

extension Service.Apps: QuiescesAtStop {
    /// The rotation stops turning first: as the cards end, no app card comes back after them.
    func halt() { rotation.halt() }
    func quiesce() async { await rotation.queue.quiesce() }
}

extension Service.Apps: ReportsStatus {
    func report(into status: inout StatusAnswer) async { status.apps = rotation.status() }
}
