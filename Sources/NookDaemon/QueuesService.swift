import NookLogging
import NookActivities
import NookConfig
import NookDisplay
import NookProtocol
import NookRender

extension Service {
    /// One queue per module, on the arbiter (C2, C3); made when nookd is built.
    final class Queues: DaemonService {
        struct Section: Equatable, Sendable {
            var modules: [NookModuleID]
            var capacity: Int
            var pollInterval: Duration
        }

        static let name = "queues"
        static var needs: [any DaemonService.Type] { [] }
        static let keys = settings.map(\.key)

        static func section(of config: DaemonConfig) -> Section {
            Section(modules: config.modules, capacity: config.capacity, pollInterval: config.pollInterval)
        }

        let arbiter: NookSurfaceArbiter
        let queues: [(NookModuleID, NookActivityQueue)]

        init(arbiter: NookSurfaceArbiter, queues: [(NookModuleID, NookActivityQueue)]) {
            (self.arbiter, self.queues) = (arbiter, queues)
        }

        func start(_ section: Section) async throws(DaemonError) {
            for (module, queue) in queues { await queue.bind(to: arbiter, moduleID: module) }
        }
    }
}

extension Service.Queues: DeclaresSettings {
    static let modules = Setting<[String]>.texts("queue.modules", default: ["default"], reload: .restart)
    static let capacity = Setting<Int>.integer("queue.capacity", default: 256, in: 1...100_000, reload: .restart)
    static let pollInterval = Setting<Int>.integer("queue.poll_interval_ms", default: 200, in: 10...5000, reload: .restart)
    static let settings = [modules.declaration, capacity.declaration, pollInterval.declaration]
}

extension Service.Queues: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.Queues {
        Service.Queues(arbiter: wiring.arbiter, queues: wiring.queuesInOrder)
    }
}

extension Service.Queues: ReportsStatus {
    /// `foreground` and each module's queue.
    func report(into status: inout StatusAnswer) async {
        status.foreground = arbiter.foregroundModule?.rawValue
        status.modules = []
        for (module, queue) in queues {
            let snapshot = await queue.snapshot()
            status.modules.append(StatusAnswer.Module(
                name: module.rawValue, current: snapshot.current, phase: snapshot.currentPhase,
                pending: snapshot.pending.count, capacity: snapshot.capacity, suspended: snapshot.isSuspended,
                displayAvailable: snapshot.isDisplayAvailable, parked: snapshot.parkReason?.description,
                blockedBy: snapshot.blockingActivity))
        }
    }
}
