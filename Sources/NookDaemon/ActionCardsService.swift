import NookLogging
import NookActivities
import NookDisplay
import NookRender

extension Service {
    /// Which card on the glass has an action (E3), followed from every queue.
    final class ActionCardTracking: DaemonService {
        typealias Section = NoSection
        static let name = "action cards"
        static var needs: [any DaemonService.Type] { [Queues.self] }

        private let queues: [NookActivityQueue]
        private let actionCards: ActionCards
        private let stops = StopActions()

        init(queues: [NookActivityQueue], actionCards: ActionCards) { (self.queues, self.actionCards) = (queues, actionCards) }

        func start(_ section: NoSection) async throws(DaemonError) {
            let observations = queues.map { queue in queue.observe { [actionCards] in actionCards.observe($0) } }
            stops.add { observations.forEach { $0.cancel() } }
        }

        func stop() async { await stops.run() }
    }
}

extension Service.ActionCardTracking: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.ActionCardTracking {
        Service.ActionCardTracking(queues: try wiring.moduleQueues, actionCards: wiring.actionCards)
    }
}
