import NookLogging
import NookActivities
import NookConfig
import NookProtocol

extension Service {
    /// Who may act on whose activities (U3): the admin group, and who is in it, read again at
    /// each reload.
    final class Ownership: DaemonService {
        struct Section: Equatable, Sendable { var adminGroup: String?; var relayUsers: [String]? }
        static let name = "ownership"
        static var needs: [any DaemonService.Type] { [] }
        static let keys = settings.map(\.key)
        static let appliesAtReload = true

        static func section(of config: DaemonConfig) -> Section { Section(adminGroup: config.adminGroup, relayUsers: config.relayUsers) }

        private let policy: Locked<OwnershipPolicy>

        init(_ config: DaemonConfig) throws(DaemonError) {
            policy = Locked(try OwnershipPolicy(adminGroup: config.adminGroup, relayUsers: config.relayUsers))
        }

        /// The uids whose stated sender names each have a share of a queue (Q16).
        var relayUIDs: Set<UInt32> { policy.withLock { $0.relayUIDs } }

        var current: OwnershipPolicy { policy.withLock { $0 } }

        func start(_ section: Section) async throws(DaemonError) {}

        /// The admin group, and who is in it, and the relay users, as the group and user
        /// databases say now: a user taken out of the group loses its rights at this reload. A
        /// group or user that is gone throws, and the reload keeps the running config, as a
        /// start would refuse the file.
        func reread(_ config: DaemonConfig) throws(DaemonError) {
            let fresh = try OwnershipPolicy(adminGroup: config.adminGroup, relayUsers: config.relayUsers)
            policy.withLock { $0 = fresh }
        }
    }
}

extension Service.Ownership: DeclaresSettings {
    /// A group that must exist; its membership is read again at each reload.
    static let adminGroup = Setting<String?>.text("daemon.admin_group", reload: .applied)
    /// Unset: `nook-http` where that user exists.
    static let relayUsers = Setting<[String]>.texts("daemon.relay_users", default: [], reload: .applied)
    static let settings = [adminGroup.declaration, relayUsers.declaration]
}

extension Service.Ownership: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.Ownership {
        try Service.Ownership(wiring.config)
    }
}
