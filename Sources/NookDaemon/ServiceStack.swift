import NookLogging

/// The parts of a running daemon in the order they started, each with how it stops: stopped
/// in reverse (mako's init/finish pairs), so nothing stops while a part started after it may
/// still use it, and a start that fails half-way undoes exactly what had started.
struct ServiceStack {
    private var services: [(name: String, stop: @Sendable () async -> Void)] = []
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// Records a part that has started, and how to stop it.
    mutating func started(_ name: String, stop: @escaping @Sendable () async -> Void) {
        services.append((name, stop))
    }

    /// Stops every part, the last started first.
    func stopAll() async {
        for service in services.reversed() {
            logger.debug("stopping \(service.name)")
            await service.stop()
        }
    }
}
