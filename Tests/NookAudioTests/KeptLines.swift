import NookActivities
import NookLogging

/// What an output logged, kept for the test to read.
struct KeptLines: LogHandler {
    let lines = Locked<[String]>([])
    var logLevel: Logger.Level = .info
    func log(event: LogEvent) {
        lines.withLock { $0.append("\(event.level) \(event.message)") }
    }

    var logger: Logger { Logger(label: "sound-test", factory: { _ in self }) }
    var all: [String] { lines.withLock { $0 } }
}
