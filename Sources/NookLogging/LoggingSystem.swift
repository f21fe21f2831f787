import Synchronization

/// Where new loggers send their lines: set once by a process at start-up (`bootstrap`),
/// standard error at `info` until then.
public enum LoggingSystem {
    private static let chosen = Mutex<(@Sendable (String) -> any LogHandler)?>(nil)

    /// Makes every `Logger(label:)` created from now on use `factory`'s handler.
    public static func bootstrap(_ factory: @escaping @Sendable (String) -> any LogHandler) {
        chosen.withLock { $0 = factory }
    }

    static func factory(_ label: String) -> any LogHandler {
        if let factory = chosen.withLock({ $0 }) { return factory(label) }
        return StandardErrorLogHandler(label: label)
    }
}
