import NookSystem

extension FlagRow {
    /// `--log-level`, refused where it is met unless it names a level (nook-mqtt's and
    /// nook-http's words; nook-notify and nook-lcdproc judge it later, as ArgumentParser did).
    public static func logLevel(placeholder: String, _ set: @escaping @Sendable (inout Line, String) -> Void) -> FlagRow {
        .value("--log-level", placeholder: placeholder, help: "Log level: trace, debug, info, notice, warning, error.") { (line, value) throws(CommandLineProblem) in
            guard Logger.Level(rawValue: value) != nil else {
                throw CommandLineProblem("--log-level must be trace, debug, info, notice, warning, error or critical; got '\(value)'")
            }
            set(&line, value)
        }
    }
}
