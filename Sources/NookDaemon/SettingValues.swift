import NookActivities
import NookDisplay

/// The rules for the settings both the config file and nookd's flags can give, in one place:
/// each returns the value or the problem without the setting's name, which the caller puts
/// first (`daemon.socket` with the file's line, or `--socket`).
public enum SettingValue {
    public static let logLevels = ["trace", "debug", "info", "notice", "warning", "error"]
    public static let themes = ["dark", "light"]
    public static let journalSyncs = JournalSync.allCases.map(\.rawValue)

    public static func absolutePath(_ text: String) -> Result<String, SettingProblem> {
        text.hasPrefix("/") ? .success(text) : .failure(SettingProblem("must be an absolute path, got \"\(text)\""))
    }

    /// A journal path, or `none` (nil): no journal.
    public static func journal(_ text: String) -> Result<String?, SettingProblem> {
        text == "none" || text.hasPrefix("/") ? .success(text == "none" ? nil : text)
            : .failure(SettingProblem("must be an absolute path or \"none\", got \"\(text)\""))
    }

    public static func journalSync(_ text: String) -> Result<JournalSync, SettingProblem> {
        JournalSync(rawValue: text).map { .success($0) } ?? .failure(SettingProblem(choiceProblem(text, among: journalSyncs)))
    }

    public static func backend(_ text: String) -> Result<DaemonConfig.Backend, SettingProblem> {
        DaemonConfig.Backend(rawValue: text).map { .success($0) }
            ?? .failure(SettingProblem(choiceProblem(text, among: DaemonConfig.Backend.allCases.map(\.rawValue))))
    }

    public static func size(_ text: String) -> Result<PixelSize, SettingProblem> {
        PixelSize(parsing: text).map { .success($0) } ?? .failure(SettingProblem("must be WIDTHxHEIGHT such as \"1280x400\", got \"\(text)\""))
    }

    public static func rotation(_ degrees: Int) -> Result<Rotation, SettingProblem> {
        guard (0...270).contains(degrees), degrees % 90 == 0, let turn = Rotation(degrees: degrees) else {
            return .failure(SettingProblem("must be 0, 90, 180 or 270, got \(degrees)"))
        }
        return .success(turn)
    }

    public static func logLevel(_ text: String) -> Result<String, SettingProblem> {
        logLevels.contains(text) ? .success(text) : .failure(SettingProblem(choiceProblem(text, among: logLevels)))
    }

    public static func theme(_ text: String) -> Result<String, SettingProblem> {
        themes.contains(text) ? .success(text) : .failure(SettingProblem(choiceProblem(text, among: themes)))
    }

    /// The wording of ConfigReader's `choice`, so the file and the flags say it alike.
    static func choiceProblem(_ text: String, among choices: [String]) -> String {
        "must be one of \(choices.joined(separator: ", ")), got \"\(text)\""
    }
}

/// What is wrong with a setting's value, without the setting's name.
public struct SettingProblem: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// nookd's command-line flags that override the config file: checked by the same rules as
/// the file's keys, applied over it at start and again at every SIGHUP reload.
public struct FlagOverrides: Sendable {
    public var socket: String?
    public var display: String?
    public var frames: String?
    public var size: String?
    public var rotation: Int?
    public var theme: String?
    public var socketGroup: String?
    public var logLevel: String?
    public var journal: String?
    public var journalSync: String?

    public init() {}

    /// The first flag with a bad value, as `--flag must be …`.
    public func validate() throws(SettingProblem) {
        func check<Value>(_ flag: String, _ result: Result<Value, SettingProblem>?) throws(SettingProblem) {
            if case .failure(let problem)? = result { throw SettingProblem("--\(flag) \(problem)") }
        }
        try check("socket", socket.map(SettingValue.absolutePath))
        try check("display", display.map(SettingValue.backend))
        try check("size", size.map(SettingValue.size))
        try check("rotation", rotation.map(SettingValue.rotation))
        try check("theme", theme.map(SettingValue.theme))
        try check("log-level", logLevel.map(SettingValue.logLevel))
        try check("journal", journal.map(SettingValue.journal))
        try check("journal-sync", journalSync.map(SettingValue.journalSync))
    }

    /// Applies every flag given; one that does not pass ``validate()`` is left out.
    public func apply(to config: inout DaemonConfig) {
        var held: [String] = []
        if case .success(let path)? = journal.map(SettingValue.journal) { config.journal.path = path; held.append(Service.Journal.path.key) }
        if case .success(let sync)? = journalSync.map(SettingValue.journalSync) { config.journal.sync = sync; held.append(Service.Journal.sync.key) }
        if case .success(let path)? = socket.map(SettingValue.absolutePath) { config.socket.path = path; held.append(Service.Socket.path.key) }
        if case .success(let backend)? = display.map(SettingValue.backend) { config.display.backend = backend; held.append(Service.Display.backend.key) }
        if let frames { config.display.frames = frames; held.append(Service.Display.frames.key) }
        if case .success(let size)? = size.map(SettingValue.size) { config.display.mockSize = size; held.append(Service.Display.size.key) }
        if case .success(let turn)? = rotation.map(SettingValue.rotation) { config.screen.rotation = turn; held.append(Service.Screen.rotation.key) }
        if let theme { config.useAppearance(theme); held.append("theme.appearance") }
        if let socketGroup { config.socket.group = socketGroup; held.append(Service.Socket.group.key) }
        if case .success(let level)? = logLevel.map(SettingValue.logLevel) { config.eventLog.logLevel = level; held.append(Service.EventLog.logLevel.key) }
        // The file's value of a key a flag holds changes nothing: a reload names it neither as
        // applied nor as needing a restart.
        for key in held { config.fileValues[key] = nil }
    }
}
