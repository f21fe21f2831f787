#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookConfig
import NookDisplay
import NookInput
import NookProtocol
import NookRender

/// Everything nookd runs with, from the config file (N1) with command-line flags over it.
public struct DaemonConfig: Sendable {
    public enum Backend: String, CaseIterable, Sendable {
        case auto, drm, fbdev, mock
        /// LED matrices and strips (L1, L2): `[led]` says which.
        case ledSPI = "led-spi", ledI2C = "led-i2c"
        /// The LEDs of `[led]` in memory, their PNG frames drawn as round LEDs.
        case ledMock = "led-mock"

        public var isLED: Bool { self == .ledSPI || self == .ledI2C || self == .ledMock }
    }

    // One member per service that owns keys, each read by that service (``OwnsSettings``),
    // in ``readingOrder``.
    var socket = Service.Socket.Settings()
    var ownership = Service.Ownership.Settings()
    var requests = Service.RequestSettings.Settings()
    var journal = Service.Journal.Settings()
    var eventLog = Service.EventLog.Settings()
    var display = Service.Display.Settings()
    var screen = Service.Screen.Settings()
    var queues = Service.Queues.Settings()
    var quiet = Service.QuietHours.Settings()
    var escalation = Service.Escalation.Settings()
    var brightness = Service.Brightness.Settings()
    var history = Service.History.Settings()
    var recall = Service.Recall.Settings()
    var apps = Service.Apps.Settings()
    var inputs = Service.Inputs.Settings()
    var touch = Service.Touch.Settings()
    var presence: Service.Presence.Settings = nil
    var sound = Service.Sound.Settings()

    /// The services that own keys, in the order they read them: of two bad keys, the one read
    /// first is named. A service may look at the settings of those before it (the recall at the
    /// icon directories, the inputs at the recall's hold, presence at the inputs).
    static let readingOrder: [any OwnsSettings.Type] = [
        Service.Socket.self, Service.Ownership.self, Service.RequestSettings.self, Service.Journal.self, Service.EventLog.self,
        Service.Display.self, Service.Screen.self, Service.Queues.self, Service.QuietHours.self, Service.Escalation.self,
        Service.Brightness.self, Service.History.self, Service.Recall.self, Service.Apps.self, Service.Inputs.self,
        Service.Touch.self, Service.Presence.self, Service.Sound.self,
    ]

    /// The file's values of nookd's keys, as written: what a reload compares to name the keys
    /// that changed.
    var fileValues: [String: ConfigValue] = [:]

    /// The level nookd's log starts at, for nookd's main, which bootstraps logging before any
    /// service exists.
    public var logLevel: String { eventLog.logLevel }

    /// Where ended activities are kept (U4): `history.path`, else beside the journal (the state
    /// directory); nil keeps them in memory only.
    var historyPath: String? {
        if let setting = history.path { return setting }
        guard let journalPath = journal.path, let slash = journalPath.lastIndex(of: "/") else { return nil }
        return String(journalPath[..<slash]) + "/history"
    }

    /// The tables of ``keys``, in the order the error about a key in an unknown table lists them.
    public static let tables = ["daemon", "journal", "display", "theme", "theme.palette", "home", "queue", "proximity", "led", "debug", "quiet", "brightness", "escalation", "presence", "history", "apps", "apps.shares", "touch", "sound"]

    /// `$XDG_RUNTIME_DIR/nook/nookd.sock`, or `/run/nook/nookd.sock` without a runtime directory.
    public static var defaultSocketPath: String {
        if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !runtime.isEmpty {
            return runtime + "/nook/nookd.sock"
        }
        return "/run/nook/nookd.sock"
    }

    /// `$STATE_DIRECTORY/journal` when systemd gives the service a state directory, else none.
    public static var defaultJournalPath: String? {
        guard let directory = getenv("STATE_DIRECTORY").map({ String(cString: $0) }), !directory.isEmpty else { return nil }
        // StateDirectory= may list several, colon-separated; Nook's is the first.
        return String(directory.split(separator: ":").first ?? "") + "/journal"
    }

    public init(socketPath: String = DaemonConfig.defaultSocketPath) {
        socket.path = socketPath
    }

    /// Reads and validates a config file; every error names the file, line and key.
    public static func load(path: String) throws(ConfigError) -> DaemonConfig {
        let document = try ConfigDocument.load(path: path)
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        return try DaemonConfig(reading: ConfigReader(document), directory: directory)
    }

    public init(reading reader: ConfigReader, directory: String = ".") throws(ConfigError) {
        try self.init(reading: reader, directory: directory, order: Self.readingOrder)
    }

    /// Each of `order`'s settings through its own reading, then the file's unknown keys and tables.
    init(reading reader: ConfigReader, directory: String, order: [any OwnsSettings.Type]) throws(ConfigError) {
        self.init()
        for owner in order { try readSettings(of: owner, from: reader, directory: directory) }
        reader.restrict(to: Self.keys)
        // nook-lcdproc's tables share the file (one config for the board); it checks them.
        reader.leave(tables: ["lcdproc", "lcdproc.keys"])
        try reader.rejectUnknownKeys(known: Self.tables + inputs.gpioLines.map { "gpio." + $0.name })
        for (key, entry) in reader.document.entries where Self.keys.contains(key) { fileValues[key] = entry.value }
    }

    /// What a start would refuse of these settings that the file alone does not show: a group
    /// or user the system does not have (`nookd --check` asks it), each service in reading order.
    public func checkNames() throws(DaemonError) {
        for owner in Self.readingOrder { try checkNames(of: owner) }
    }

    /// `nookd --check`'s line for these settings, once ``checkNames()`` found nothing wrong.
    public var summary: String {
        "configuration OK (socket \(socket.path), display \(display.backend.rawValue), modules \(queues.modules.map(\.rawValue).joined(separator: ", ")))"
    }
}

extension DaemonConfig {
    /// `--theme dark|light`: switches to that built-in theme unless the config already uses it
    /// (keeping the file's own overrides of it). False for any other name.
    @discardableResult
    public mutating func useAppearance(_ name: String) -> Bool {
        guard let appearance = Theme.Appearance(rawValue: name) else { return false }
        if screen.theme.appearance != appearance { screen.theme = .named(appearance) }
        return true
    }
}
