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

    public var socketPath: String
    /// Group that may use the socket (mode 0660); nil keeps the daemon's own group.
    public var socketGroup: String?
    public var socketMode: UInt32 = 0o660
    /// When non-empty, only these uids (and members of `allowedGroups`) may connect (C4).
    public var allowedUIDs: [UInt32] = []
    public var allowedGroups: [String] = []
    /// Members may update, cancel and dismiss everyone's activities, as root may (U3).
    public var adminGroup: String?
    /// `daemon.relay_users`: the users whose programs relay others' messages (nook-http) and so
    /// may state for whom they send with a share of the queue per name (Q16); nil: `nook-http`
    /// where that user exists.
    public var relayUsers: [String]?
    /// Directories icon image files may come from (R3); nookd reads nothing else on a client's behalf.
    public var iconDirectories: [String] = IconPolicy.defaultDirectories
    public var backend: Backend = .auto
    /// Size of the mock display.
    public var mockSize = PixelSize(width: 1280, height: 400)
    /// Where the mock writes its PNG frames; nil writes none.
    public var framesDirectory: String?
    /// How many frame files the mock keeps there; older ones are removed (the disk stays bounded).
    public var framesLimit = Service.Display.framesLimit.defaultValue
    /// Open socket connections at most; more are refused with a reason (C1).
    public var maxConnections = SocketServer.defaultMaximumConnections
    /// Timeouts, the per-user share and the buffer budget for slow clients (C1, C4).
    public var connectionLimits = ConnectionLimits()
    public var rotation: Rotation = .none
    /// DRM: the card (`/dev/dri/card0`), connector (`HDMI-A-1`) and mode (`1280x400@60`);
    /// nil takes the first card with a connected connector and its preferred mode.
    public var drmCard: String?
    public var drmConnector: String?
    public var drmMode: String?
    /// `display.page_flip = false`: one buffer and dirty-fb even where the driver flips.
    public var drmPageFlip = Service.Display.pageFlip.defaultValue
    /// fbdev: the framebuffer device (`/dev/fb1`); nil takes the first one.
    public var fbdevPath: String?
    public var refreshHz = Service.Display.refreshHz.defaultValue
    /// Blank the panel after this long without a card; nil never blanks.
    public var blankAfter: Duration?
    public var theme: Theme = .dark
    public var home: HomeContent = .clock
    public var capacity = Service.Queues.capacity.defaultValue
    /// `queue.per_sender`: the most pending activities one sender may hold in a module (a uid's
    /// own programs together; each name a relay states, a nook-http token, apart); 0: no share
    /// smaller than the capacity.
    public var perSender = Service.RequestSettings.perSender.defaultValue
    public var pollInterval: Duration = .milliseconds(Service.Queues.pollInterval.defaultValue)
    /// Declared modules, one queue each; the first is foreground at start.
    public var modules = Service.Queues.modules.defaultValue.map { NookModuleID($0) }
    public var logLevel = "info"
    /// An IIO proximity sensor driving `hover` (I2); nil runs without one.
    public var proximity: ProximitySensor.Settings?
    /// Where unfinished activities are journalled so a crash or restart loses none; nil keeps
    /// them in memory only. Defaults to `$STATE_DIRECTORY/journal` (systemd's StateDirectory=).
    public var journalPath: String? = DaemonConfig.defaultJournalPath
    /// When a journal record is safe enough to answer (J1, J2): synced (`ack`), or written and
    /// synced within a second (`interval`).
    public var journalSync: JournalSync = .ack
    /// GPIO inputs (I1), `[gpio.NAME]` tables in file order.
    public var gpioLines: [GPIOLineSettings] = []
    /// The LEDs the `led-*` backends drive (`[led]`).
    public var led = LEDSettings()
    /// Fault injection for the watchdog's tests (W1, `debug.hang_display_file`): the display
    /// loop hangs at the first present after this file appears. Nil (the default): never.
    public var hangDisplayFile: String?
    /// `debug.press_inputs`: the `press` operation acts as the open or dismiss button (tests,
    /// boards without buttons). Off: `press` is refused.
    public var pressInputs = Service.RequestSettings.pressInputs.defaultValue
    /// Quiet hours (Z1, `[quiet]`).
    var quiet = QuietConfig()
    /// Z2 (`[brightness]`): the backlight's name under `brightnessRoot`; nil, with a
    /// `[brightness]` table, dims the drawn frames instead.
    var backlightName: String?
    /// Whether `[brightness]` says anything: without it nookd leaves the brightness alone.
    var brightnessConfigured = false
    var brightnessRoot = "/sys/class/backlight"
    var brightnessLevels = BrightnessController.Levels()
    var brightnessFade: Duration = .milliseconds(400)
    /// Z2's ambient light sensor (`brightness.ambient_*`); nil: the levels are fixed.
    var ambient: AmbientSettings?
    /// Z4 (`[escalation]`); no steps: blockers never escalate.
    var escalation = Escalator.Settings()
    /// Z3 (`[presence]`); nil when no input reports presence.
    var presence: PresenceTracker.Settings?

    /// `[history] path` (U4): a file, `none` (memory only), or nil: `history` next to the journal.
    var historySetting: String??
    /// `[history] max_entries`, `max_age`.
    var historyBounds = ActivityHistory.Bounds()
    /// `[history] recall_hold_ms`, `recall_entries`, `recall_dwell_ms` (U5's recall gesture).
    var recall = HistoryRecall.Settings()
    /// `[apps] duration_ms` (A2: a turn's default length).
    var apps = AppRotation.Settings()
    /// `[touch]` (T1–T3): the touch panel and its gestures.
    var touch = TouchConfig()

    /// The file's values of nookd's keys, as written: what a reload compares to name the keys
    /// that changed.
    var fileValues: [String: ConfigValue] = [:]

    /// Where ended activities are kept (U4): `history.path`, else beside the journal (the state
    /// directory); nil keeps them in memory only.
    var historyPath: String? {
        if let setting = historySetting { return setting }
        guard let journalPath, let slash = journalPath.lastIndex(of: "/") else { return nil }
        return String(journalPath[..<slash]) + "/history"
    }

    /// The tables of ``keys``, in the order the error about a key in an unknown table lists them.
    public static let tables = ["daemon", "journal", "display", "theme", "theme.palette", "home", "queue", "proximity", "led", "debug", "quiet", "brightness", "escalation", "presence", "history", "apps", "touch"]

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
        self.socketPath = socketPath
    }

    /// Reads and validates a config file; every error names the file, line and key.
    public static func load(path: String) throws(ConfigError) -> DaemonConfig {
        let document = try ConfigDocument.load(path: path)
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        return try DaemonConfig(reading: ConfigReader(document), directory: directory)
    }

    public init(reading reader: ConfigReader, directory: String = ".") throws(ConfigError) {
        self.init()
        reader.restrict(to: Self.keys)
        /// The value, or the problem as an error naming the key and its line.
        func checked<Value>(_ key: String, _ result: Result<Value, SettingProblem>) throws(ConfigError) -> Value {
            switch result {
            case .success(let value): return value
            case .failure(let problem): throw reader.error(key, problem.description)
            }
        }
        // Each service's keys through its own reader, in one fixed order: of two bad keys, the
        // one read first is named.
        var socket = try Service.Socket.readAccess(reader, over: Service.Socket.section(of: self))
        (socketPath, socketGroup, socketMode, allowedUIDs, allowedGroups) = (socket.path, socket.group, socket.mode, socket.uids, socket.groups)
        adminGroup = try Service.Ownership.adminGroup.read(reader)
        relayUsers = try Service.Ownership.relayUsers.read(reader) ?? relayUsers
        let icons = Service.RequestSettings.iconDirectories
        if let directories = try icons.read(reader) {
            for directory in directories where !directory.hasPrefix("/") {
                throw reader.error(icons.key, "must list absolute paths, got \"\(directory)\"")
            }
            iconDirectories = directories
        }
        socket = try Service.Socket.readLimits(reader, over: socket)
        (maxConnections, connectionLimits) = (socket.maxConnections, socket.limits)
        let journal = try Service.Journal.read(reader, over: Service.Journal.section(of: self))
        (journalPath, journalSync) = (journal.path, journal.sync)
        logLevel = try Service.EventLog.logLevel.read(reader) ?? logLevel

        if let name = try Service.Display.backend.read(reader) { backend = Backend(rawValue: name)! }
        if let text = try Service.Display.size.read(reader) { mockSize = try checked(Service.Display.size.key, SettingValue.size(text)) }
        framesDirectory = try Service.Display.frames.read(reader)
        framesLimit = try Service.Display.framesLimit.read(reader) ?? framesLimit
        if let degrees = try Service.Screen.rotation.read(reader) { rotation = try checked(Service.Screen.rotation.key, SettingValue.rotation(degrees)) }
        refreshHz = try Service.Display.refreshHz.read(reader) ?? refreshHz
        if let seconds = try Service.Screen.blankAfter.read(reader), seconds > 0 { blankAfter = .seconds(seconds) }
        drmCard = try Service.Display.card.read(reader)
        fbdevPath = try Service.Display.fbdev.read(reader)
        drmConnector = try Service.Display.connector.read(reader)
        if let mode = try Service.Display.mode.read(reader) {
            let parts = mode.split(separator: "@")
            guard (1...2).contains(parts.count), PixelSize(parsing: String(parts[0])) != nil, parts.count == 1 || Int(parts[1]) != nil else {
                throw reader.error(Service.Display.mode.key, "must be WIDTHxHEIGHT or WIDTHxHEIGHT@HZ such as \"1280x400@60\", got \"\(mode)\"")
            }
            drmMode = mode
        }
        drmPageFlip = try Service.Display.pageFlip.read(reader) ?? drmPageFlip

        theme = try Theme.load(from: reader, directory: directory)

        home = try Service.Screen.readHome(reader) ?? home

        capacity = try Service.Queues.capacity.read(reader) ?? capacity
        perSender = try Service.RequestSettings.perSender.read(reader) ?? perSender
        if let milliseconds = try Service.Queues.pollInterval.read(reader) { pollInterval = .milliseconds(milliseconds) }
        if let names = try Service.Queues.modules.read(reader) {
            guard !names.isEmpty else { throw reader.error(Service.Queues.modules.key, "must name at least one module") }
            for name in names where name.isEmpty || name.contains(where: \.isWhitespace) {
                throw reader.error(Service.Queues.modules.key, "module names must be non-empty words, got \"\(name)\"")
            }
            guard Set<String>(names).count == names.count else { throw reader.error(Service.Queues.modules.key, "names a module twice") }
            modules = names.map { NookModuleID($0) }
        }
        proximity = try Service.Inputs.Proximity.read(reader)
        pressInputs = try Service.RequestSettings.pressInputs.read(reader) ?? pressInputs
        let hang = Service.Display.hangDisplayFile
        if let path = try hang.read(reader) { hangDisplayFile = try checked(hang.key, SettingValue.absolutePath(path)) }
        quiet = try QuietConfig(reading: reader)
        escalation = try Service.Escalation.read(reader)
        let brightness = try Service.Brightness.read(reader, over: Service.Brightness.section(of: self))
        (brightnessConfigured, backlightName, brightnessRoot) = (brightness.configured, brightness.backlightName, brightness.root)
        (brightnessLevels, brightnessFade, ambient) = (brightness.levels, brightness.fade, brightness.ambient)
        (historySetting, historyBounds) = try Service.History.read(reader)
        recall = try Service.Recall.read(reader)
        apps = try Service.Apps.read(reader)
        gpioLines = try GPIOConfig.lines(from: reader)
        touch = try TouchConfig(reading: reader)
        // A toggle button's long press is the recall gesture (U5); a switch's level is a state.
        recall.iconDirectories = iconDirectories
        for index in gpioLines.indices where gpioLines[index].role == .open && gpioLines[index].openMode == .toggle {
            gpioLines[index].longPressAfter = recall.hold
        }
        presence = try Service.Presence.read(reader, hasInput: proximity?.presenceThreshold != nil || gpioLines.contains { $0.role == .presence })
        led = try LEDSettings(reading: reader, backend: backend)
        // nook-lcdproc's tables share the file (one config for the board); it checks them.
        reader.leave(tables: ["lcdproc", "lcdproc.keys"])
        try reader.rejectUnknownKeys(known: Self.tables + gpioLines.map { "gpio." + $0.name })
        for (key, entry) in reader.document.entries where Self.keys.contains(key) { fileValues[key] = entry.value }
    }
}

extension DaemonConfig {
    /// `--theme dark|light`: switches to that built-in theme unless the config already uses it
    /// (keeping the file's own overrides of it). False for any other name.
    @discardableResult
    public mutating func useAppearance(_ name: String) -> Bool {
        guard let appearance = Theme.Appearance(rawValue: name) else { return false }
        if theme.appearance != appearance { theme = .named(appearance) }
        return true
    }
}
