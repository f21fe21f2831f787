import NookLogging
import NookActivities
import NookConfig
import NookProtocol

extension Service {
    /// Who may act on whose activities (U3): the admin group, and who is in it, read again at
    /// each reload.
    final class Ownership: DaemonService {
        struct Settings: Equatable, Sendable {
            /// Members may update, cancel and dismiss everyone's activities, as root may (U3).
            var adminGroup: String?
            /// The users whose programs relay others' messages (nook-http) and so may state for
            /// whom they send, with a share of the queue per name (Q16); nil: `nook-http` where
            /// that user exists.
            var relayUsers: [String]?
        }
        typealias Section = Settings
        static let name = "ownership"
        static var needs: [any DaemonService.Type] { [] }
        static let keys = settings.map(\.key)
        static let appliesAtReload = true

        private let policy: Locked<OwnershipPolicy>

        init(_ settings: Settings) throws(DaemonError) {
            policy = Locked(try OwnershipPolicy(settings))
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
            let fresh = try OwnershipPolicy(config.ownership)
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

extension Service.Ownership: OwnsSettings {
    static var member: WritableKeyPath<DaemonConfig, Settings> { \.ownership }

    static func read(_ reader: ConfigReader, over settings: Settings, in reading: SettingsReading) throws(ConfigError) -> Settings {
        Settings(adminGroup: try adminGroup.read(reader), relayUsers: try relayUsers.read(reader) ?? settings.relayUsers)
    }

    /// The group and users a start looks up (U3, Q16), as the start does: one that does not
    /// exist is refused naming the key.
    static func checkNames(_ settings: Settings) throws(DaemonError) {
        _ = try OwnershipPolicy(settings)
    }
}

extension OwnershipPolicy {
    init(_ settings: Service.Ownership.Settings) throws(DaemonError) {
        try self.init(adminGroup: settings.adminGroup, relayUsers: settings.relayUsers)
    }
}

extension Service.Ownership: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.Ownership {
        try Service.Ownership(wiring.config.ownership)
    }
}
