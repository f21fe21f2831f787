/// How every Nook process logs: `StandardErrorLogHandler` on standard error (the journal takes
/// it under systemd), at the level named by `--log-level`.
public enum StandardErrorLogging {
    public static let levelNames = "trace, debug, info, notice, warning, error or critical"

    /// Why `name` is not a log level (the message for `--log-level`), or nil.
    public static func problem(withLevel name: String) -> String? {
        Logger.Level(rawValue: name) == nil ? "--log-level must be \(levelNames); got '\(name)'" : nil
    }

    /// Sends every logger's output to standard error at `name`'s level (info if it names none).
    public static func bootstrap(level name: String) {
        let level = Logger.Level(rawValue: name) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StandardErrorLogHandler(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
