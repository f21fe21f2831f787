#if canImport(Glibc)
import Glibc
#endif
import NookLogging
import NookActivities
import NookConfig
import NookProtocol

extension Service {
    /// The socket (C1, C4): started last, as every request may reach every other service.
    final class Socket: DaemonService {
        /// `daemon.socket` … `daemon.max_buffered_bytes`.
        struct Settings: Equatable, Sendable {
            var path = DaemonConfig.defaultSocketPath
            /// Group that may use the socket (mode 0660); nil keeps the daemon's own group.
            var group: String?
            var mode: UInt32 = 0o660
            /// When non-empty, only these uids (and members of `groups`) may connect (C4).
            var uids: [UInt32] = []
            var groups: [String] = []
            /// Open socket connections at most; more are refused with a reason (C1).
            var maxConnections = SocketServer.defaultMaximumConnections
            /// Timeouts, the per-user share and the buffer budget for slow clients (C1, C4).
            var limits = ConnectionLimits()
        }
        typealias Section = Settings

        static let name = "socket"
        static var needs: [any DaemonService.Type] {
            [Signals.self, Queues.self, Screen.self, Journal.self, History.self, Recall.self, Brightness.self, QuietHours.self, Presence.self,
             Inputs.self, Ownership.self, RequestSettings.self, HomeClock.self]
        }
        /// The server takes them all at start.
        static let keys = settings.map(\.key)

        private let ownership: Ownership
        private let journal: ActivityJournal?
        private let history: ActivityHistory
        private let state: Locked<Daemon.State>
        private let logger: Logger
        private let handler = Locked<KeptClosure<SocketServer.Handler>?>(nil)
        private let stopAnnounced = Locked<KeptClosure<@Sendable () -> Bool>?>(nil)
        private let server = Locked<SocketServer?>(nil)

        init(ownership: Ownership, journal: ActivityJournal?, history: ActivityHistory, state: Locked<Daemon.State>, logger: Logger) {
            (self.ownership, self.journal, self.history, self.state, self.logger) = (ownership, journal, history, state, logger)
        }

        /// What serves each batch of request lines.
        /// `stopAnnounced`: whether a stop is on its way before ``beginStop()`` (a stop signal's
        /// handler ran): the server accepts nothing more from then on.
        func serve(_ handler: @escaping SocketServer.Handler, stopAnnounced: (@Sendable () -> Bool)? = nil) {
            self.handler.withLock { $0 = KeptClosure(handler) }
            self.stopAnnounced.withLock { $0 = stopAnnounced.map(KeptClosure.init) }
        }

        @Sendable private static func noStopAnnounced() -> Bool { false }

        /// nookd is asked to stop: new connections end and no request begins
        /// (``SocketServer/beginStop()``); the server stops with the other services.
        func beginStop() {
            server.withLock { $0 }?.beginStop()
        }

        func start(_ section: Section) async throws(DaemonError) {
            let handler: SocketServer.Handler = self.handler.withLock { $0?.call } ?? { @Sendable _, _ async in }
            let announced: (@Sendable () -> Bool)? = self.stopAnnounced.withLock { $0?.call }
            let stopAnnounced: @Sendable () -> Bool = announced ?? Self.noStopAnnounced
            do {
                let policy = try AccessPolicy(uids: section.uids, groups: section.groups)
                let server = try SocketServer(
                    path: section.path, mode: section.mode, group: section.group, policy: policy,
                    maximumLine: NookProtocol.maximumLineBytes, logger: logger, maximumConnections: section.maxConnections,
                    limits: section.limits, privileged: { [ownership] peer in ownership.current.isAdmin(peer) },
                    stopAnnounced: stopAnnounced, handler: handler,
                    refusal: { connection, problem in
                        if case .tooLong(let bytes) = problem {
                            connection.send(ResponseLine.failure(id: nil, error: ProtocolError(
                                .lineTooLong, "a request line is limited to \(NookProtocol.maximumLineBytes) bytes; this one has \(bytes) or more")).encoded())
                        }
                    },
                    // An answer that depends on journal records leaves once they are settled, with
                    // the history's entries recorded by then (J1, J2, U4).
                    settle: { [journal, history] mark, done in
                        if let journal { journal.whenSettled(through: mark, with: history, done) } else { done(nil) }
                    })
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
}

extension Service.Socket: DeclaresSettings {
    private static func seconds(_ duration: Duration) -> Int { Int(duration.components.seconds) }

    /// An absolute path; unset, ``DaemonConfig/defaultSocketPath``.
    static let path = Setting<String?>.text("daemon.socket", reload: .restart)
    static let group = Setting<String?>.text("daemon.socket_group", reload: .restart)
    /// An octal mode as text, such as "0660".
    static let mode = Setting<String?>.text("daemon.socket_mode", reload: .restart, shownDefault: "\"0660\"")
    static let allowedUIDs = Setting<[Int]>.integers("daemon.allowed_uids", default: [], in: 0...Int(UInt32.max - 1), reload: .restart)
    static let allowedGroups = Setting<[String]>.texts("daemon.allowed_groups", default: [], reload: .restart)

    static let maxConnections = Setting<Int>.integer("daemon.max_connections", default: SocketServer.defaultMaximumConnections,
                                                     in: 1...65_536, reload: .restart)
    /// Unset: a quarter of ``maxConnections``.
    static let maxConnectionsPerUser = Setting<Int?>.integer("daemon.max_connections_per_user", in: 1...65_536, reload: .restart)
    static let partialLineTimeout = Setting<Int>.integer("daemon.partial_line_timeout", default: seconds(ConnectionLimits().partialLineTimeout),
                                                         in: ConnectionLimits.timeoutRange, reload: .restart)
    static let idleTimeout = Setting<Int>.integer("daemon.idle_timeout", default: seconds(ConnectionLimits().idleTimeout),
                                                  in: ConnectionLimits.timeoutRange, reload: .restart)
    static let unreadTimeout = Setting<Int>.integer("daemon.unread_timeout", default: seconds(ConnectionLimits().unreadTimeout),
                                                    in: ConnectionLimits.timeoutRange, reload: .restart)
    static let maxBufferedBytes = Setting<Int>.integer("daemon.max_buffered_bytes", default: ConnectionLimits().bufferedBytes,
                                                       in: ConnectionLimits.bufferedRange, reload: .restart)
    static let settings = [path.declaration, group.declaration, mode.declaration, allowedUIDs.declaration, allowedGroups.declaration, maxConnections.declaration, maxConnectionsPerUser.declaration, partialLineTimeout.declaration,
                           idleTimeout.declaration, unreadTimeout.declaration, maxBufferedBytes.declaration]
}

extension Service.Socket: OwnsSettings {
    static var member: WritableKeyPath<DaemonConfig, Settings> { \.socket }

    /// The socket's path, who may use it (C4) and the connection limits (C1).
    static func read(_ reader: ConfigReader, over settings: Settings, in reading: SettingsReading) throws(ConfigError) -> Settings {
        var settings = settings
        if let text = try path.read(reader) {
            switch SettingValue.absolutePath(text) {
            case .success(let value): settings.path = value
            case .failure(let problem): throw reader.error(path.key, problem.description)
            }
        }
        settings.group = try group.read(reader)
        if let text = try mode.read(reader) {
            guard let value = UInt32(text, radix: 8), value <= 0o777 else { throw reader.error(mode.key, "must be an octal mode such as \"0660\", got \"\(text)\"") }
            settings.mode = value
        }
        settings.uids = try allowedUIDs.read(reader)?.map(UInt32.init) ?? []
        settings.groups = try allowedGroups.read(reader) ?? allowedGroups.defaultValue
        settings.maxConnections = try maxConnections.read(reader) ?? settings.maxConnections
        settings.limits.perUser = try maxConnectionsPerUser.read(reader) ?? settings.limits.perUser
        if let seconds = try partialLineTimeout.read(reader) { settings.limits.partialLineTimeout = .seconds(seconds) }
        if let seconds = try idleTimeout.read(reader) { settings.limits.idleTimeout = .seconds(seconds) }
        if let seconds = try unreadTimeout.read(reader) { settings.limits.unreadTimeout = .seconds(seconds) }
        settings.limits.bufferedBytes = try maxBufferedBytes.read(reader) ?? settings.limits.bufferedBytes
        return settings
    }

    /// The groups the socket's start looks up (C4): one that does not exist stops the start.
    static func checkNames(_ settings: Settings) throws(DaemonError) {
        if let name = settings.group, getgrnam(name) == nil {
            throw DaemonError("\(group.key): socket group '\(name)' does not exist (create it: groupadd \(name))")
        }
        do {
            _ = try AccessPolicy(uids: settings.uids, groups: settings.groups)
        } catch {
            throw DaemonError("\(allowedGroups.key): \(error)")
        }
    }
}

extension Service.Socket: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.Socket {
        Service.Socket(ownership: try wiring.part(Service.Ownership.self), journal: try wiring.part(Service.Journal.self).journal,
                       history: try wiring.part(Service.History.self).history, state: wiring.state, logger: wiring.logger)
    }
}
