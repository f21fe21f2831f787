import NookActivities
import NookAudio
import NookConfig
import NookLogging
import NookProtocol
import NookSound

extension Service {
    /// B1, B2: the sound output `[sound]` names, chosen once at start (`auto` looks as the display
    /// backends do), and its part of `status`; each card's priority's sound, played as the card
    /// slides in. The output plays on a thread of its own, so nothing of nookd waits for it; a
    /// missing or busy device is its log line and its status.
    final class Sound: DaemonService {
        struct Settings: Equatable, Sendable {
            var output = SoundOutputKind.none
            /// The ALSA PCM's name, or the beeper's event device; nil: `default`, or the beeper found.
            var device: String?
            /// 0–100.
            var volume = 80
            /// The sound each priority's cards come with; none where not set.
            var byPriority: [NookActivityPriority: Melody] = [:]
        }
        typealias Section = Settings
        static let name = "sound"
        static var needs: [any DaemonService.Type] { [Queues.self] }
        static let keys = settings.map(\.key)

        /// The output in use; nil until started and after the stop.
        let current = Locked<(any SoundOutput)?>(nil)
        private let queues: [NookActivityQueue]
        private let logger: Logger
        private let stops = StopActions()

        init(queues: [NookActivityQueue], logger: Logger) { (self.queues, self.logger) = (queues, logger) }

        func start(_ section: Section) async throws(DaemonError) {
            let (output, note) = SoundOutputChoice.make(section.output, device: section.device, logger: logger)
            current.withLock { $0 = output }
            logger.info("\(note)")
            guard !section.byPriority.isEmpty else { return }
            let chimed = Locked(RecentIDs())
            let relays = queues.map { queue in
                let events = queue.events(where: { $0.kind == .animateIn })
                return Task { [logger] in
                    for await event in events {
                        // A card that slides in again (requeued, back from a recall) chimed already.
                        guard let melody = section.byPriority[event.activity.priority], chimed.withLock({ $0.insert(event.id) }) else { continue }
                        if let reason = output.cannotPlay(.tones(melody)) {
                            logger.debug("sound: \(melody.name) for \(event.id) not played: \(reason)")
                            continue
                        }
                        output.play(.tones(melody), volume: section.volume)
                    }
                }
            }
            stops.add { relays.forEach { $0.cancel() } }
        }

        /// How long the stop waits for the output to be silenced: within N2's 2 s with the
        /// queues' quiescing, and longer than a chunk of samples or a drain takes.
        static let silencedWithin = Duration.milliseconds(250)

        /// Silences and lets go of the output: returns once its thread has cut off the sound and
        /// silenced the device, so nookd never exits with a beeper sounding.
        func stop() async {
            await stops.run()
            let output = current.withLock { current in defer { current = nil }; return current }
            // Blocks this thread for at most the bound, once, as nookd stops.
            if let output, !output.close(within: Self.silencedWithin) {
                logger.warning("sound: the output was not silenced within \(Self.silencedWithin) (its device is stuck in a call); nookd stops without it")
            }
        }
    }

    /// The cards that chimed lately, so a card that slides in again is not announced twice.
    struct RecentIDs {
        private var order: [NookActivityID] = []
        private var seen: Set<NookActivityID> = []
        static let kept = 256

        /// Whether `id` is new (and now kept).
        mutating func insert(_ id: NookActivityID) -> Bool {
            guard seen.insert(id).inserted else { return false }
            order.append(id)
            if order.count > Self.kept { seen.remove(order.removeFirst()) }
            return true
        }
    }
}

extension Service.Sound: DeclaresSettings {
    static let output = Setting<String>.choice("sound.output", among: SoundOutputKind.allCases.map(\.rawValue), default: "none", reload: .restart)
    static let device = Setting<String?>.text("sound.device", reload: .restart, shownDefault: "default, or the beeper found")
    static let volume = Setting<Int>.integer("sound.volume", default: 80, in: 0...100, reload: .restart)
    static let low = Setting<String?>.text("sound.low", reload: .restart, shownDefault: "none")
    static let normal = Setting<String?>.text("sound.normal", reload: .restart, shownDefault: "none")
    static let high = Setting<String?>.text("sound.high", reload: .restart, shownDefault: "none")
    static let settings = [output.declaration, device.declaration, volume.declaration, low.declaration, normal.declaration, high.declaration]
}

extension Service.Sound: OwnsSettings {
    static var member: WritableKeyPath<DaemonConfig, Settings> { \.sound }

    /// `[sound]` (B1): which output, on what.
    static func read(_ reader: ConfigReader, over settings: Settings, in reading: SettingsReading) throws(ConfigError) -> Settings {
        var sound = settings
        if let name = try output.read(reader), let kind = SoundOutputKind(rawValue: name) { sound.output = kind }
        if let device = try device.read(reader) {
            guard !device.allSatisfy(\.isWhitespace) else {
                throw reader.error(Self.device.key, "must name an ALSA PCM or an event device; got \(device.isEmpty ? "an empty string" : "only spaces")")
            }
            // A NUL would end the name early where it reaches open(2) or alsa-lib: another device.
            if let control = device.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
                let code = String(control.value, radix: 16, uppercase: true)
                throw reader.error(Self.device.key, "has a control character (U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code)) in it")
            }
            guard sound.output != .none else {
                throw reader.error(Self.device.key, "names a device for no output: set sound.output to \"alsa\", \"beeper\" or \"auto\"")
            }
            // Auto's choice decides what a device would be (a PCM, or a beeper it finds itself).
            guard sound.output != .auto else {
                throw reader.error(Self.device.key, "auto finds its own device (a sound card's default PCM, else the first beeper); "
                                   + "set sound.output to \"alsa\" or \"beeper\" to name one")
            }
            sound.device = device
        }
        if let volume = try volume.read(reader) { sound.volume = volume }
        for (setting, priority) in [(low, NookActivityPriority.low), (normal, .normal), (high, .high)] {
            guard let text = try setting.read(reader) else { continue }
            guard sound.output != .none else {
                throw reader.error(setting.key, "plays nowhere: set sound.output to \"alsa\", \"beeper\" or \"auto\"")
            }
            sound.byPriority[priority] = try melody(text, for: setting.key, reader)
        }
        return sound
    }

    /// A chime's name, or an RTTTL string (`name:d=4,o=5,b=100:notes`, told by its colons).
    static func melody(_ text: String, for key: String, _ reader: ConfigReader) throws(ConfigError) -> Melody {
        if text.contains(":") {
            do throws(SoundError) { return try RTTTL.parse(text) } catch { throw reader.error(key, "\(error)") }
        }
        guard let melody = Chimes.melody(named: text) else {
            throw reader.error(key, "is not a chime Nook has ('\(text)'; docs/sound.md lists them), nor an RTTTL string (name:d=4,o=5,b=100:notes)")
        }
        return melody
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
        Service.Sound(queues: try wiring.moduleQueues, logger: wiring.logger)
    }
}
