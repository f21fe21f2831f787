import NookActivities
import NookAudio
import NookConfig
import NookLogging
import NookProtocol

extension Service {
    /// B1: the sound output `[sound]` names, chosen once at start (`auto` looks as the display
    /// backends do), and its part of `status`. The output plays on a thread of its own, so
    /// nothing of nookd waits for it; a missing or busy device is its log line and its status.
    final class Sound: DaemonService {
        struct Settings: Equatable, Sendable {
            var output = SoundOutputKind.none
            /// The ALSA PCM's name, or the beeper's event device; nil: `default`, or the beeper found.
            var device: String?
        }
        typealias Section = Settings
        static let name = "sound"
        static var needs: [any DaemonService.Type] { [] }
        static let keys = settings.map(\.key)

        /// The output in use; nil until started and after the stop.
        let current = Locked<(any SoundOutput)?>(nil)
        private let logger: Logger

        init(logger: Logger) { self.logger = logger }

        func start(_ section: Section) async throws(DaemonError) {
            let (output, note) = SoundOutputChoice.make(section.output, device: section.device, logger: logger)
            current.withLock { $0 = output }
            logger.info("\(note)")
        }

        /// Silences and lets go of the output (its thread ends with the last sound cut off).
        func stop() async {
            let output = current.withLock { current in defer { current = nil }; return current }
            output?.stop()
        }
    }
}

extension Service.Sound: DeclaresSettings {
    static let output = Setting<String>.choice("sound.output", among: SoundOutputKind.allCases.map(\.rawValue), default: "none", reload: .restart)
    static let device = Setting<String?>.text("sound.device", reload: .restart, shownDefault: "default, or the beeper found")
    static let settings = [output.declaration, device.declaration]
}

extension Service.Sound: OwnsSettings {
    static var member: WritableKeyPath<DaemonConfig, Settings> { \.sound }

    /// `[sound]` (B1): which output, on what.
    static func read(_ reader: ConfigReader, over settings: Settings, in reading: SettingsReading) throws(ConfigError) -> Settings {
        var sound = settings
        if let name = try output.read(reader), let kind = SoundOutputKind(rawValue: name) { sound.output = kind }
        if let device = try device.read(reader) {
            guard !device.isEmpty else { throw reader.error(Self.device.key, "must name an ALSA PCM or an event device; got an empty string") }
            guard sound.output != .none else {
                throw reader.error(Self.device.key, "names a device for no output: set sound.output to \"alsa\", \"beeper\" or \"auto\"")
            }
            sound.device = device
        }
        return sound
    }
}

extension Service.Sound: ReportsStatus {
    func report(into status: inout StatusAnswer) async {
        guard let output = current.withLock({ $0 }) else { return }
        let now = output.status
        status.sound = StatusAnswer.Sound(output: now.output, device: now.device, state: now.state.rawValue, problem: now.problem,
                                          played: now.played, failed: now.failed)
    }
}

extension Service.Sound: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.Sound {
        Service.Sound(logger: wiring.logger)
    }
}
