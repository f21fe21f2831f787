import Glibc
import NookSystem
import Synchronization

/// Writes a line per event to standard error, in the format swift-log's `StreamLogHandler`
/// wrote before Nook had a logger of its own (the tests and people's scripts read it):
/// `2026-11-27T02:45:00+0000 info nookd: key=value key2=value [NookDaemon] message`, the
/// metadata sorted by key and left out with its colon's space when there is none.
public struct StandardErrorLogHandler: LogHandler {
    public let label: String
    public var logLevel = Logger.Level.info

    public init(label: String) {
        self.label = label
    }

    public func log(event: LogEvent) {
        let metadata = event.metadata.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        let line = "\(Self.timestamp()) \(event.level)\(label.isEmpty ? "" : " ")\(label):\(metadata) [\(event.source)] \(event.message)\n"
        // Straight to descriptor 2, unbuffered, one line at a time: lines from threads never
        // interleave (the C `stderr` global is not concurrency-safe).
        Self.writing.withLock { _ in writeWhole(line, to: 2) }
    }

    private static let writing = Mutex(())

    /// Local time, as strftime's `%Y-%m-%dT%H:%M:%S%z` writes it.
    static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        guard localtime_r(&now, &parts) != nil else { return "<unknown>" }
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
