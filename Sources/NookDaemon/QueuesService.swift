import NookLogging
import NookActivities
import NookDisplay
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
        static let needs: [String] = []
        static let keys = ["queue.modules", "queue.capacity", "queue.poll_interval_ms"]

        static func section(of config: DaemonConfig) -> Section {
            Section(modules: config.modules, capacity: config.capacity, pollInterval: config.pollInterval)
        }

        private let arbiter: NookSurfaceArbiter
        private let queues: [(NookModuleID, NookActivityQueue)]

        init(arbiter: NookSurfaceArbiter, queues: [(NookModuleID, NookActivityQueue)]) {
            (self.arbiter, self.queues) = (arbiter, queues)
        }

        func start(_ section: Section) async throws(DaemonError) {
            for (module, queue) in queues { await queue.bind(to: arbiter, moduleID: module) }
        }
    }
}
