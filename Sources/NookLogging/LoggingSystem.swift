import Synchronization

/// Where new loggers send their lines: set once by a process at start-up (`bootstrap`),
/// standard error at `info` until then.
public enum LoggingSystem {
    /// In a struct: a closure kept bare in a `Mutex` gains a thunk each time `withLock` hands it
    /// out where it is not specialized (NookActivities' `KeptClosure` says how).
    private struct Factory: Sendable { let make: @Sendable (String) -> any LogHandler }

    private static let chosen = Mutex<Factory?>(nil)

    /// Makes every `Logger(label:)` created from now on use `factory`'s handler.
    public static func bootstrap(_ factory: @escaping @Sendable (String) -> any LogHandler) {
        chosen.withLock { $0 = Factory(make: factory) }
    }

    static func factory(_ label: String) -> any LogHandler {
        if let factory = chosen.withLock({ $0 }) { return factory.make(label) }
        return StandardErrorLogHandler(label: label)
    }
}
