import Logging
import NookActivities
import NookProtocol

extension Service {
    /// The socket (C1, C4): started last, as every request may reach every other service.
    final class Socket: DaemonService {
        struct Section: Equatable, Sendable {
            var path: String
            var group: String?
            var mode: UInt32
            var uids: [UInt32]
            var groups: [String]
            var maxConnections: Int
            var limits: ConnectionLimits
        }

        static let name = "socket"
        static let needs = ["signals", "queues", "screen", "journal", "history", "recall", "brightness", "quiet hours", "presence",
                            "inputs", "ownership", "requests", "home clock"]
        /// The server takes them all at start.
        static let keys = ["daemon.socket", "daemon.socket_group", "daemon.socket_mode", "daemon.allowed_uids", "daemon.allowed_groups",
                           "daemon.max_connections", "daemon.max_connections_per_user", "daemon.partial_line_timeout", "daemon.idle_timeout",
                           "daemon.max_buffered_bytes"]

        static func section(of config: DaemonConfig) -> Section {
            Section(path: config.socketPath, group: config.socketGroup, mode: config.socketMode, uids: config.allowedUIDs, groups: config.allowedGroups,
                    maxConnections: config.maxConnections, limits: config.connectionLimits)
        }

        private let ownership: Ownership
        private let journal: ActivityJournal?
        private let state: Locked<Daemon.State>
        private let logger: Logger
        private let handler = Locked<SocketServer.Handler?>(nil)
        private let server = Locked<SocketServer?>(nil)

        init(ownership: Ownership, journal: ActivityJournal?, state: Locked<Daemon.State>, logger: Logger) {
            (self.ownership, self.journal, self.state, self.logger) = (ownership, journal, state, logger)
        }

        /// What serves each batch of request lines.
        func serve(_ handler: @escaping SocketServer.Handler) {
            self.handler.withLock { $0 = handler }
        }

        func start(_ section: Section) async throws(DaemonError) {
            let handler: SocketServer.Handler = self.handler.withLock { $0 } ?? { @Sendable _, _ async in }
            do {
                let policy = try AccessPolicy(uids: section.uids, groups: section.groups)
                let server = try SocketServer(
                    path: section.path, mode: section.mode, group: section.group, policy: policy,
                    maximumLine: NookProtocol.maximumLineBytes, logger: logger, maximumConnections: section.maxConnections,
                    limits: section.limits, privileged: { [ownership] peer in ownership.current.isAdmin(peer) },
                    handler: handler,
                    refusal: { connection, problem in
                        if case .tooLong(let bytes) = problem {
                            connection.send(ResponseLine.failure(id: nil, error: ProtocolError(
                                .lineTooLong, "a request line is limited to \(NookProtocol.maximumLineBytes) bytes; this one has \(bytes) or more")).encoded())
                        }
                    },
                    // An answer that depends on journal records leaves once they are settled (J1, J2).
                    settle: { [journal] mark in await journal?.settle(through: mark) ?? nil })
                try server.start()
                self.server.withLock { $0 = server }
                state.withLock { $0.server = server }
            } catch {
                throw DaemonError("cannot serve on \(section.path): \(error)")
            }
        }

        func stop() async {
            server.withLock { $0 }?.stop()
        }
    }

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

    /// What requests read from the config as they come: the icon directories (R3) and
    /// `debug.press_inputs`; a reload's new values serve the next request.
    final class RequestSettings: DaemonService {
        struct Section: Equatable, Sendable {
            var iconDirectories: [String]
            var pressInputs: Bool
        }

        static let name = "requests"
        static let needs: [String] = []
        static let keys = ["daemon.icon_directories", "debug.press_inputs"]
        static let appliesAtReload = true

        static func section(of config: DaemonConfig) -> Section { Section(iconDirectories: config.iconDirectories, pressInputs: config.pressInputs) }

        func start(_ section: Section) async throws(DaemonError) {}
    }
}
