import NookLogging
import NookActivities
import NookConfig
import NookDisplay
import NookProtocol
import NookRender

extension Service {
    /// One queue per module, on the arbiter (C2, C3); made when nookd is built. Each asks the
    /// ownership service, at each enqueue, whose stated senders have a share of it (Q16).
    final class Queues: DaemonService {
        struct Settings: Equatable, Sendable {
            /// Declared modules, one queue each; the first is foreground at start.
            var modules = Service.Queues.modules.defaultValue.map { NookModuleID($0) }
            var capacity = Service.Queues.capacity.defaultValue
            var pollInterval: Duration = .milliseconds(Service.Queues.pollInterval.defaultValue)
        }
        typealias Section = Settings

        static let name = "queues"
        static var needs: [any DaemonService.Type] { [] }
        /// Its start binds nothing of the ownership's: the policy is read at each enqueue.
        static var uses: [any DaemonService.Type] { [Ownership.self] }
        static let keys = settings.map(\.key)

        let arbiter: NookSurfaceArbiter
        /// The modules' queues in the modules' order (the first is foreground at start).
        let inOrder: [(NookModuleID, NookActivityQueue)]
        let byModule: [NookModuleID: NookActivityQueue]

        init(_ settings: Settings, clock: any NookClock, engagement: NookEngagement, arbiter: NookSurfaceArbiter, ownership: Ownership) {
            self.arbiter = arbiter
            inOrder = settings.modules.map { module in
                // The screen reports each slide-in's end: a card's dwell counts from when it is
                // really on the glass (Q13), however busy the display; 2 s bounds a stuck one.
                let queue = NookActivityQueue(clock: clock, engagement: engagement,
                                              configuration: .init(pollInterval: settings.pollInterval, capacity: settings.capacity,
                                                                   presenterTimeout: .seconds(2),
                                                                   shareOf: { [ownership] in Daemon.share(of: $0, relays: ownership.relayUIDs) }))
                arbiter.register(NookQueueModule(id: module, queue: queue))
                return (module, queue)
            }
            byModule = Dictionary(uniqueKeysWithValues: inOrder)
        }

        func start(_ section: Section) async throws(DaemonError) {
            for (module, queue) in inOrder { await queue.bind(to: arbiter, moduleID: module) }
        }
    }
}

extension Service.Queues: DeclaresSettings {
    static let modules = Setting<[String]>.texts("queue.modules", default: ["default"], reload: .restart)
    static let capacity = Setting<Int>.integer("queue.capacity", default: 256, in: 1...100_000, reload: .restart)
    static let pollInterval = Setting<Int>.integer("queue.poll_interval_ms", default: 200, in: 10...5000, reload: .restart)
    static let settings = [modules.declaration, capacity.declaration, pollInterval.declaration]
}

extension Service.Queues: OwnsSettings {
    static var member: WritableKeyPath<DaemonConfig, Settings> { \.queues }

    static func read(_ reader: ConfigReader, over settings: Settings, in reading: SettingsReading) throws(ConfigError) -> Settings {
        var settings = settings
        settings.capacity = try capacity.read(reader) ?? settings.capacity
        if let milliseconds = try pollInterval.read(reader) { settings.pollInterval = .milliseconds(milliseconds) }
        if let names = try modules.read(reader) {
            guard !names.isEmpty else { throw reader.error(modules.key, "must name at least one module") }
            for name in names where name.isEmpty || name.contains(where: \.isWhitespace) {
                throw reader.error(modules.key, "module names must be non-empty words, got \"\(name)\"")
            }
            guard Set<String>(names).count == names.count else { throw reader.error(modules.key, "names a module twice") }
            settings.modules = names.map { NookModuleID($0) }
        }
        return settings
    }
}

extension Service.Queues: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.Queues {
        Service.Queues(wiring.config.queues, clock: wiring.clock, engagement: wiring.engagement, arbiter: wiring.arbiter,
                       ownership: try wiring.part(Service.Ownership.self))
    }
}

extension Service.Queues: QuiescesAtStop {
    /// Every module's queue at once.
    func quiesce() async {
        await withTaskGroup(of: Void.self) { group in
            for (_, queue) in inOrder { group.addTask { await queue.quiesce() } }
        }
    }
}

extension Service.Queues: ReportsStatus {
    /// `foreground` and each module's queue.
    func report(into status: inout StatusAnswer) async {
        status.foreground = arbiter.foregroundModule?.rawValue
        status.modules = []
        for (module, queue) in inOrder {
            let snapshot = await queue.snapshot()
            status.modules.append(StatusAnswer.Module(
                name: module.rawValue, current: snapshot.current, phase: snapshot.currentPhase,
                pending: snapshot.pending.count, capacity: snapshot.capacity, suspended: snapshot.isSuspended,
                displayAvailable: snapshot.isDisplayAvailable, parked: snapshot.parkReason?.description,
                blockedBy: snapshot.blockingActivity))
        }
    }
}
