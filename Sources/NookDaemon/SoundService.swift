import NookActivities
import NookAudio
import NookConfig
import NookLogging
import NookProtocol
import NookSound

extension Service {
    /// B1, B2, B3: the sound output `[sound]` names, chosen once at start (`auto` looks as the
    /// display backends do), and its part of `status`; each card's priority's sound, played as the
    /// card slides in at the volume the room allows (quiet hours and an empty room lower or
    /// silence it), what became of it noted for the card's history entry. The output plays on a
    /// thread of its own, so nothing of nookd waits for it; a missing or busy device is its log
    /// line and its status.
    final class Sound: DaemonService {
        struct Settings: Equatable, Sendable {
            var output = SoundOutputKind.none
            /// The ALSA PCM's name, or the beeper's event device; nil: `default`, or the beeper found.
            var device: String?
            /// The volume (0–100) and what lowers it.
            var room = RoomSoundRules()
            var volume: Int {
                get { room.volume }
                set { room.volume = newValue }
            }
            /// The sound each priority's cards come with; none where not set.
            var byPriority: [NookActivityPriority: Melody] = [:]
            /// Where a card's WAV file is looked up by its name (B2).
            var directory = Service.Sound.directory.defaultValue
        }
        typealias Section = Settings
        static let name = "sound"
        static var needs: [any DaemonService.Type] { [Queues.self, History.self, Presence.self] }
        static let keys = settings.map(\.key)

        /// The output in use; nil until started and after the stop.
        let current = Locked<(any SoundOutput)?>(nil)
        /// Each change of the output's state (a sound began or ended): `watch`'s status line
        /// `sound`, on which a mirror of the status (nook-mqtt's siren) reads it again.
        let stateChanges = NookObserverList<SoundOutputStatus.State>()
        private let queues: [NookActivityQueue]
        private let room: @Sendable () async -> RoomSoundRules.Room
        private let noteVerdict: @Sendable (NookActivityID, RoomSoundRules.Verdict) -> Void
        let logger: Logger
        private let stops = StopActions()
        /// Sounds the room lowered or silenced since the start, for `status`.
        private let roomCounts = Locked((lowered: 0, silenced: 0))
        /// The cards that slid in with a sound: a sound given one of them later never plays.
        private let chimed = Locked(Recent<NookActivityID>())
        /// The `sound-play` ids carried out: a redelivery of one plays nothing (B4).
        let playIDs = Locked(PlayIDs())
        /// The volume and what lowers it, once started (`sound.volume` 0: no sound plays).
        let rules = Locked(RoomSoundRules())
        /// nook.toml's `sound.volume`, and whether `rules`' volume was set over the API instead
        /// (`sound-volume`) until it is given back or nookd restarts.
        let configuredVolume = Locked((volume: 80, overridden: false))
        /// The sound last handed to the output, which plays until it ends or a newer one comes:
        /// whose it is, its melody's name and its priority.
        private let lastPlayed = Locked<Played?>(nil)
        typealias Played = (owner: Owner, name: String, priority: NookActivityPriority)
        /// How many times a card's sound plays, and what stops a repeat early (B2).
        let repeats: SoundRepeats

        /// `room` says how the room is when a sound would start; `note` hands a card's verdict to
        /// its history entry.
        init(queues: [NookActivityQueue], room: @escaping @Sendable () async -> RoomSoundRules.Room = { .init(quiet: false, empty: false) },
             note: @escaping @Sendable (NookActivityID, RoomSoundRules.Verdict) -> Void = { _, _ in }, logger: Logger,
             repeats: SoundRepeats? = nil) {
            (self.queues, self.room, self.noteVerdict, self.logger) = (queues, room, note, logger)
            self.repeats = repeats ?? SoundRepeats(escalation: nil, engagement: nil, clock: NookSystemClock(), logger: logger)
        }

        func start(_ section: Section) async throws(DaemonError) {
            let (output, note) = SoundOutputChoice.make(section.output, device: section.device, logger: logger)
            output.observe { [stateChanges] in stateChanges.notify($0) }
            current.withLock { $0 = output }
            logger.info("\(note)")
            rules.withLock { $0 = section.room }
            configuredVolume.withLock { $0 = (section.room.volume, false) }
            // Without an output no sound plays: a card that asks for one was told at enqueue.
            guard section.output != .none else { return }
            let relays = queues.map { queue in
                let events = queue.events(where: { $0.kind == .animateIn })
                return Task { [weak self, logger, chimed, repeats] in
                    for await event in events {
                        // A card that slides in again (requeued, back from a recall) chimed already.
                        guard let melody = Self.program(of: event.activity, section, on: output, repeats: repeats, logger),
                              chimed.withLock({ $0.insert(event.id) }) else { continue }
                        if let reason = output.cannotPlay(melody) {
                            logger.debug("sound: \(melody.name) for \(event.id) not played: \(reason)")
                            continue
                        }
                        guard let verdict = await self?.play(melody, for: .card(event.id), priority: event.activity.priority, on: output) else { continue }
                        if case .silenced = verdict {} else { repeats.started(melody, for: event.id, activity: event.activity, verdict: verdict) }
                    }
                }
            }
            stops.add { relays.forEach { $0.cancel() } }
            repeats.start(queues: queues, output: output, roomChanged: { [weak self] in await self?.roomChanged() })
            stops.add { [repeats] in await repeats.stop() }
        }

        /// Whose sound it is, for the log and the history: a card's, or one with no card (B4),
        /// asked for by a client of this uid.
        enum Owner: Sendable {
            case card(NookActivityID)
            case noCard(uid: UInt32)

            var card: NookActivityID? { if case .card(let id) = self { id } else { nil } }

            /// After the melody's name in a log line: `for 9c1e…`, `(no card, uid 1000)`.
            var logged: String {
                switch self {
                case .card(let id): "for \(id)"
                case .noCard(let uid): "(no card, uid \(uid))"
                }
            }
        }

        /// B3: plays `melody` at the level the room allows for `priority` (never above `asked`,
        /// where a sound with no card asks for one), or keeps it silent; the room's verdict is
        /// counted for `status`, logged, and noted in the card's history entry. A card's sound
        /// played as it was is not logged (its entry says it); one with no card always is, since
        /// no entry keeps it.
        func play(_ program: SoundProgram, for owner: Owner, priority: NookActivityPriority, asked: Int? = nil,
                  on output: any SoundOutput) async -> RoomSoundRules.Verdict {
            let rules = rules.withLock { $0 }
            let verdict = rules.verdict(for: priority, in: await room(), hasVolume: output.hasVolume, asked: asked)
            if let id = owner.card { noteVerdict(id, verdict) }
            let line = "sound: \(program.name) \(owner.logged) \(verdict)"
            switch verdict {
            case .cutOff: break
            case .notLowered:
                logger.notice("\(line)")
                start(program, for: owner, priority: priority, at: min(rules.volume, asked ?? rules.volume), on: output)
            case .silenced:
                if verdict.silencedByTheRoom { roomCounts.withLock { $0.silenced += 1 } }
                logger.info("\(line)")
            case .play(let volume, let lowered):
                if lowered != nil { roomCounts.withLock { $0.lowered += 1 } }
                if lowered != nil || owner.card == nil { logger.info("\(line)") }
                start(program, for: owner, priority: priority, at: volume, on: output)
            }
            return verdict
        }

        /// Stops the sound playing, whoever's it is (B4's `sound-stop`): its card's entry says it
        /// was cut off, and the log who stopped it. Returns its melody's name, or nil when nothing
        /// was playing.
        func stopPlaying(by uid: UInt32) -> String? {
            guard let output = current.withLock({ $0 }) else { return nil }
            // The stop and the sound it names in one step: a sound-play racing it is either
            // the one stopped or plays on, never stopped under another's name.
            let (stopped, last) = lastPlayed.withLock { last -> (Bool, Played?) in
                guard output.stop() else { return (false, nil) }
                defer { last = nil }
                return (true, last)
            }
            guard stopped else { return nil }
            if let id = last?.owner.card { noteVerdict(id, .cutOff(by: "stopped")) }
            logger.info("sound: \(last.map { "\($0.name) \($0.owner.logged)" } ?? "the sound playing") stopped by uid \(uid)")
            return last?.name ?? ""
        }

        /// Hands `melody` to the output as the sound last played, in one step with a stop's
        /// taking of it (``stopPlaying(by:)``). A card's sound a sound with no card cuts off
        /// short has its entry say so: its sound did not play to its end.
        private func start(_ program: SoundProgram, for owner: Owner, priority: NookActivityPriority, at volume: Int, on output: any SoundOutput) {
            // Whatever repeat played is cut off by this sound: from before it starts, that card's
            // end stops nothing (it would cut off this one), until this card's own repeat is noted.
            repeats.forget()
            let cut = lastPlayed.withLock { last -> Played? in
                defer { last = (owner, program.name, priority) }
                return output.play(program, volume: volume) ? last : nil
            }
            guard let cut, let id = cut.owner.card, id != owner.card else { return }
            let verdict = RoomSoundRules.Verdict.cutOff(by: owner.card == nil ? "a sound with no card" : "a newer card's sound")
            noteVerdict(id, verdict)
            logger.info("sound: \(cut.name) \(cut.owner.logged) \(verdict): \(program.name) \(owner.logged)")
        }

        /// The card's own sound (B4; empty: none), else its priority's.
        static func melody(of activity: NookActivity, _ section: Section, _ logger: Logger) -> Melody? {
            guard let own = activity.sound else { return section.byPriority[activity.priority] }
            guard !own.isEmpty else { return nil }
            do throws(SoundError) {
                return try SoundText.melody(own)
            } catch {
                // Checked at enqueue; a journal's record from an older nookd may not be.
                logger.warning("sound: \(activity.id)'s sound is not played: \(error)")
                return nil
            }
        }

        /// What a sender is told when the sound it asked for (`sound`, B4) will not play on this
        /// board: no output, one that cannot play it, or `sound.volume = 0`; or, for an update,
        /// the cards in `slidIn` slid in already (a card's sound plays as it slides in). Said at
        /// enqueue and update; the room's verdict comes as the card slides in (its history entry).
        func unplayable(_ sound: String?, slidIn: [NookActivityID] = [], priority: NookActivityPriority? = nil) -> [String] {
            guard let sound, !sound.isEmpty else { return [] }
            let output: any SoundOutput = current.withLock { $0 } ?? SilentOutput()
            let shown = "sound '\(LogText.short(sound))' will not play"
            let file = SoundText.namesFile(sound)
            let program = file ? SoundProgram.file(SoundFile(name: sound, directory: "")) : .tones(Melody(name: sound, tones: []))
            if let reason = output.cannotPlay(program) { return ["\(shown): \(reason)" + (file && !(output is SilentOutput) ? Self.fileInstead(priority) : "")] }
            if rules.withLock({ $0.volume }) == 0 { return ["\(shown): \(volumeZero)"] }
            guard !slidIn.isEmpty else { return [] }
            let cards = slidIn.map { "\($0)" }.joined(separator: ", ")
            return ["\(shown) for \(cards): \(slidIn.count == 1 ? "it" : "each") slid in already, and a card's sound plays as it slides in"]
        }

        /// B3 when the room changes under a sound (`nookctl quiet on`): the one still playing is
        /// cut off if the room now silences it, and its entry says so; one it would only lower
        /// plays on (a sound's volume is set as it starts).
        func roomChanged() async {
            guard let output = current.withLock({ $0 }), output.status.state == .playing, let last = lastPlayed.withLock({ $0 }) else { return }
            let verdict = rules.withLock { $0 }.verdict(for: last.priority, in: await room(), hasVolume: output.hasVolume)
            guard case .silenced(let reason) = verdict else { return }
            output.stop()
            lastPlayed.withLock { $0 = nil }
            roomCounts.withLock { $0.silenced += 1 }
            if let id = last.owner.card { noteVerdict(id, .cutOff(by: reason)) }
            logger.info("sound: \(last.name) \(last.owner.logged) \(RoomSoundRules.Verdict.cutOff(by: reason))")
        }

        /// Whether `id`'s card slid in with a sound (lately: ``RecentIDs``).
        func slidInWithSound(_ id: NookActivityID) -> Bool { chimed.withLock { $0.contains(id) } }

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
    /// The `sound-play` ids carried out (B4), for a sender's second request with one (a broker's
    /// redelivery to a bridge that restarted): each uid's own last ``kept``, for ``window``. Long
    /// enough for a bridge's restart; short, because a broker that lost its session gives new
    /// messages the packet ids (and so a bridge the play ids) of old ones, and a new doorbell
    /// must not be taken for an old one for longer than that.
    struct PlayIDs {
        static let kept = 256
        static let window = Duration.seconds(120)
        private var byUID: [UInt32: [(id: NookActivityID, at: NookInstant)]] = [:]

        /// Whether `id` is new for `uid` at `now` (and now kept).
        mutating func insert(_ id: NookActivityID, uid: UInt32, now: NookInstant) -> Bool {
            // The other uids' ids that ran out go too: no uid's list outlives its window.
            for (other, ids) in byUID where other != uid {
                let kept = ids.filter { now - $0.at < Self.window }
                byUID[other] = kept.isEmpty ? nil : kept
            }
            var ids = (byUID[uid] ?? []).filter { now - $0.at < Self.window }
            defer { byUID[uid] = ids }
            guard !ids.contains(where: { $0.id == id }) else { return false }
            ids.append((id, now))
            if ids.count > Self.kept { ids.removeFirst(ids.count - Self.kept) }
            return true
        }
    }

    /// The last ``kept`` ids seen, the oldest forgotten first.
    struct Recent<ID: Hashable> {
        private var order: [ID] = []
        private var seen: Set<ID> = []
        static var kept: Int { 256 }

        func contains(_ id: ID) -> Bool { seen.contains(id) }

        /// Whether `id` is new (and now kept).
        mutating func insert(_ id: ID) -> Bool {
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
    static let directory = Setting<String>.text("sound.directory", default: "/etc/nook/sounds", reload: .restart)
    static let quietVolume = Setting<Int>.integer("sound.quiet_volume", default: 0, in: 0...100, reload: .restart)
    static let quietThrough = Setting<String>.choice("sound.quiet_through", among: ["none"] + NookActivityPriority.allCases.map { "\($0)" }, default: "none",
                                                     reload: .restart)
    static let awayVolume = Setting<Int?>.integer("sound.away_volume", in: 0...100, reload: .restart, shownDefault: "unchanged")
    static let settings = [output.declaration, device.declaration, volume.declaration, quietVolume.declaration, quietThrough.declaration,
                           awayVolume.declaration, low.declaration, normal.declaration, high.declaration, directory.declaration]
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
        if let directory = try directory.read(reader) { sound.directory = try Self.soundDirectory(directory, reader) }
        if let level = try quietVolume.read(reader) { sound.room.quietVolume = level }
        if let through = try quietThrough.read(reader) {
            sound.room.quietThrough = NookActivityPriority.allCases.first { "\($0)" == through }
        }
        if let level = try awayVolume.read(reader) {
            // Nobody is ever "not there" without an input that says who is.
            guard reading.earlier.presence != nil else {
                throw reader.error(awayVolume.key, "needs presence: proximity.presence_threshold, or a [gpio.NAME] table with role = \"presence\" (a PIR sensor)")
            }
            sound.room.awayVolume = level
        }
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
        do throws(SoundError) { return try SoundText.melody(text) } catch { throw reader.error(key, "\(error)") }
    }
}

extension Service.Sound: ReportsStatus {
    func report(into status: inout StatusAnswer) async {
        guard let output = current.withLock({ $0 }) else { return }
        let now = output.status
        let counts = roomCounts.withLock { $0 }
        status.sound = StatusAnswer.Sound(output: now.output, device: now.device, state: now.state.rawValue, problem: now.problem,
                                          played: now.played, failed: now.failed, lowered: counts.lowered, silenced: counts.silenced,
                                          unreadable: now.unreadable, volume: rules.withLock { $0.volume },
                                          volumeSet: configuredVolume.withLock { $0.overridden })
    }
}

extension Service.Sound: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.Sound {
        let history = try wiring.part(Service.History.self).history
        let quiet = wiring.quiet, presence = try wiring.part(Service.Presence.self)
        // Empty once presence has dimmed the display for nobody there (presence.dim_after_s): a
        // PIR's idle moment while someone sits still is not an empty room.
        return Service.Sound(queues: try wiring.moduleQueues,
                             room: { .init(quiet: quiet.isQuiet, empty: (await presence.current.withLock { $0 }?.state ?? .present) != .present) },
                             note: { history.noteSound("\($1)", for: $0) }, logger: wiring.logger,
                             repeats: SoundRepeats(escalation: wiring.config.escalation.length, engagement: wiring.engagement, clock: wiring.clock,
                                                   logger: wiring.logger, note: { history.noteSound($1, for: $0) }))
    }
}
