import NookLogging
import NookActivities
import NookProtocol

extension Service {
    /// Who may act on whose activities (U3): the admin group, and who is in it, read again at
    /// each reload.
    final class Ownership: DaemonService {
        struct Section: Equatable, Sendable { var adminGroup: String? }
        static let name = "ownership"
        static let needs: [String] = []
        static let keys = ["daemon.admin_group"]
        static let appliesAtReload = true

        static func section(of config: DaemonConfig) -> Section { Section(adminGroup: config.adminGroup) }

        private let policy: Locked<OwnershipPolicy>

        init(_ config: DaemonConfig) throws(DaemonError) {
            policy = Locked(try OwnershipPolicy(adminGroup: config.adminGroup))
        }

        var current: OwnershipPolicy { policy.withLock { $0 } }

        func start(_ section: Section) async throws(DaemonError) {}

        /// The admin group, and who is in it, as the group database says now: a user taken out
        /// of the group loses its rights at this reload. A group that is gone throws, and the
        /// reload keeps the running config, as a start would refuse the file.
        func reread(_ config: DaemonConfig) throws(DaemonError) {
            let fresh = try OwnershipPolicy(adminGroup: config.adminGroup)
            policy.withLock { $0 = fresh }
        }
    }
}
