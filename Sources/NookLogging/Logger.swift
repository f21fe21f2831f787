/// A logger with the part of swift-log's API Nook uses, and the same lines on standard error.
///
/// Nook's own so that the package builds with Swift 6.0 (the oldest it supports, Debian 13's):
/// the swift-log releases that can be had offline need tools 6.2. It is also one dependency
/// less to compile on a board. The message and the metadata are built only when the level is
/// enabled, as swift-log's autoclosures do.
public struct Logger: Sendable {
    /// Severity, least to most severe. The raw values are the names `--log-level` accepts.
    public enum Level: String, Sendable, CaseIterable, Comparable {
        case trace, debug, info, notice, warning, error, critical

        public static func < (lhs: Level, rhs: Level) -> Bool {
            lhs.severity < rhs.severity
        }

        private var severity: Int {
            switch self {
            case .trace: 0
            case .debug: 1
            case .info: 2
            case .notice: 3
            case .warning: 4
            case .error: 5
            case .critical: 6
            }
        }
    }

    public typealias Metadata = [String: MetadataValue]

    public let label: String
    public var handler: any LogHandler

    /// A logger whose lines go where `LoggingSystem.bootstrap` said (standard error at `info`
    /// before that).
    public init(label: String) {
        self.init(label: label, factory: LoggingSystem.factory)
    }

    /// A logger with a handler of its own: a test keeps its lines, or discards them.
    public init(label: String, factory: (String) -> any LogHandler) {
        self.label = label
        handler = factory(label)
    }

    /// The handler's level: lines below it are not built.
    public var logLevel: Level {
        get { handler.logLevel }
        set { handler.logLevel = newValue }
    }

    public func log(level: Level, _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil,
                    fileID: String = #fileID) {
        guard handler.logLevel <= level else { return }
        handler.log(event: LogEvent(level: level, message: message(), metadata: metadata() ?? [:],
                                    source: Logger.module(of: fileID)))
    }

    public func trace(_ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil, fileID: String = #fileID) {
        log(level: .trace, message(), metadata: metadata(), fileID: fileID)
    }

    public func debug(_ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil, fileID: String = #fileID) {
        log(level: .debug, message(), metadata: metadata(), fileID: fileID)
    }

    public func info(_ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil, fileID: String = #fileID) {
        log(level: .info, message(), metadata: metadata(), fileID: fileID)
    }

    public func notice(_ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil, fileID: String = #fileID) {
        log(level: .notice, message(), metadata: metadata(), fileID: fileID)
    }

    public func warning(_ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil, fileID: String = #fileID) {
        log(level: .warning, message(), metadata: metadata(), fileID: fileID)
    }

    public func error(_ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil, fileID: String = #fileID) {
        log(level: .error, message(), metadata: metadata(), fileID: fileID)
    }

    public func critical(_ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil, fileID: String = #fileID) {
        log(level: .critical, message(), metadata: metadata(), fileID: fileID)
    }

    /// The module a `#fileID` ("Module/File.swift") names: the `[source]` of a line.
    static func module(of fileID: String) -> String {
        fileID.firstIndex(of: "/").map { String(fileID[..<$0]) } ?? "n/a"
    }
}

extension Logger {
    /// A log message: written as a string literal or interpolation.
    public struct Message: ExpressibleByStringInterpolation, CustomStringConvertible, Sendable, Equatable {
        public let description: String

        public init(stringLiteral value: String) {
            description = value
        }

        public init(stringInterpolation: DefaultStringInterpolation) {
            description = String(stringInterpolation: stringInterpolation)
        }
    }

    /// A metadata value: Nook's are strings (`["peer": "\(peer)"]`).
    public struct MetadataValue: ExpressibleByStringInterpolation, CustomStringConvertible, Sendable, Equatable {
        public let description: String

        public init(stringLiteral value: String) {
            description = value
        }

        public init(stringInterpolation: DefaultStringInterpolation) {
            description = String(stringInterpolation: stringInterpolation)
        }
    }
}

/// One line to log, as a handler receives it.
public struct LogEvent: Sendable {
    public var level: Logger.Level
    public var message: Logger.Message
    public var metadata: Logger.Metadata
    /// The module that logged it.
    public var source: String
}

/// Where a logger's lines go.
public protocol LogHandler: Sendable {
    var logLevel: Logger.Level { get set }
    func log(event: LogEvent)
}

/// Drops every line: for a logger a test or a benchmark does not read.
public struct DiscardingLogHandler: LogHandler {
    public var logLevel = Logger.Level.critical

    public init() {}

    public func log(event: LogEvent) {}
}
