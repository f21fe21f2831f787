import NookActivities
import NookAudio
import NookLogging
import NookProtocol
import NookConfig
import NookSound

extension Service.Sound {
    /// What a card plays as it slides in (B2, B4): its own sound (a chime, an RTTTL string, or a
    /// WAV file in `sound.directory`, read when it plays), else its priority's, repeated as it
    /// asks. A WAV file on an output that plays no samples (a beeper) plays its priority's sound
    /// instead, as the sender was told at enqueue.
    static func program(of activity: NookActivity, _ section: Section, on output: any SoundOutput, repeats: SoundRepeats,
                        _ logger: Logger) -> SoundProgram? {
        var base: SoundProgram?
        if let own = activity.sound, SoundText.namesFile(own) {
            let file = SoundProgram.file(SoundFile(name: own, directory: section.directory))
            base = output.cannotPlay(file) == nil ? file : section.byPriority[activity.priority].map(SoundProgram.tones)
        } else {
            base = melody(of: activity, section, logger).map(SoundProgram.tones)
        }
        return base.map { repeats.program($0, for: activity) }
    }

    /// What a sender is told when the repeat it asked for (`soundRepeat`, B2) will not be heard:
    /// the card has no sound to repeat (`sound` empty, or none and its priority has none), the
    /// board plays none (no output, `sound.volume = 0`), or, for an update, the cards in `slidIn`
    /// slid in already (a card's sound, and so its repeat, starts as it slides in). Nothing is
    /// said where the sound's own note (``unplayable(_:slidIn:priority:)``) says it already.
    func unrepeated(_ soundRepeat: NookSoundRepeat?, sound: String?, priorityHasSound: Bool, slidIn: [NookActivityID] = []) -> [String] {
        guard let soundRepeat, soundRepeat != .times(1), unplayable(sound, slidIn: slidIn).isEmpty else { return [] }
        let shown = "soundRepeat (\(soundRepeat)) will not play"
        if sound == "" || (sound == nil && !priorityHasSound) {
            return ["\(shown): the card has no sound to repeat (\(sound == nil ? "none given, and its priority has none in nook.toml" : "sound is empty"))"]
        }
        let output: any SoundOutput = current.withLock { $0 } ?? SilentOutput()
        if let reason = output.cannotPlay(.tones(Melody(name: "", tones: []))) { return ["\(shown): \(reason)"] }
        if rules.withLock({ $0.volume }) == 0 { return ["\(shown): sound.volume is 0 in nook.toml"] }
        guard !slidIn.isEmpty else { return [] }
        let cards = slidIn.map { "\($0)" }.joined(separator: ", ")
        return ["\(shown) for \(cards): \(slidIn.count == 1 ? "it" : "each") slid in already, and a card's sound plays as it slides in"]
    }

    /// What the sender of a WAV file's name is told where the output plays no samples.
    static func fileInstead(_ priority: NookActivityPriority?) -> String {
        "; the card comes with its priority's sound instead (sound.\(priority.map { "\($0)" } ?? "low, normal or high"), if set)"
    }
}

extension Daemon {
    /// B2, B4: a card's sound and its repeat, checked where it is enqueued or updated, in the
    /// connection's task. A WAV file's name is looked up in `sound.directory` and the file read
    /// and decoded now (a name with a slash or a leading dot, a link out of the directory, a
    /// FIFO, a device, a directory, a file over 32 MiB or not a WAV file Nook plays refuses the
    /// request naming `field`); anything else is a chime or an RTTTL string (``checkSound(_:field:)``).
    /// A count of plays must fit 15 minutes with the sound it repeats (its own, or its priority's).
    func checkCardSound(_ activity: NookActivity, field: String, repeatField: String) throws(ProtocolError) {
        try checkCardSound(activity.sound, repeat: activity.soundRepeat, priority: activity.priority, field: field, repeatField: repeatField)
    }

    /// As above for an update's `sound` and `soundRepeat`; `priority` nil: a count is checked
    /// only against a sound the update gives.
    func checkCardSound(_ sound: String?, repeat soundRepeat: NookSoundRepeat?, priority: NookActivityPriority?,
                        field: String, repeatField: String) throws(ProtocolError) {
        let settings = state.withLock { $0.config.sound }
        var length: (name: String, duration: Duration)?
        if let sound, SoundText.namesFile(sound) {
            do throws(SoundError) {
                length = (sound, try SoundFile(name: sound, directory: settings.directory).load().length)
            } catch {
                throw ProtocolError(.invalid, field: field, error.message)
            }
        } else {
            try CardSound.check(sound, field: field)
            // Empty is a silent card: there is no sound for a count to be too long with.
            let melody = sound == "" ? nil : sound.flatMap { try? SoundText.melody($0) } ?? priority.flatMap { settings.byPriority[$0] }
            length = melody.map { ($0.name, .milliseconds($0.milliseconds)) }
        }
        guard case .times(let count)? = soundRepeat, let length else { return }
        do throws(SoundError) {
            try SoundRepeat.check(count, of: length.name, length: length.duration)
        } catch {
            throw ProtocolError(.invalid, field: repeatField, error.message)
        }
    }
}

extension Service.Sound {
    /// `sound.directory`: an absolute path (nookd's working directory is no place a user knows),
    /// with no control character (a NUL would end it early where it reaches realpath(3)).
    static func soundDirectory(_ text: String, _ reader: ConfigReader) throws(ConfigError) -> String {
        guard text.hasPrefix("/") else { throw reader.error(directory.key, "must be an absolute path, got '\(text)'") }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw reader.error(directory.key, "has a control character in it")
        }
        return text
    }
}
