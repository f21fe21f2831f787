/// A WAV file a card's sound names (B2): a plain file name in the sound directory
/// (`sound.directory`), never a path. Only its name and directory: NookAudio reads it where it
/// plays, and nookd where it checks it at enqueue, each time afresh.
public struct SoundFile: Sendable, Hashable {
    /// As the sender wrote it: `knock.wav`, or its path in the directory (`/etc/nook/sounds/knock.wav`).
    public var name: String
    /// The sound directory as nook.toml names it.
    public var directory: String

    public init(name: String, directory: String) {
        (self.name, self.directory) = (name, directory)
    }

    /// Why `name` cannot be a file's name in the directory, or nil: a slash (a path, which could
    /// lead anywhere), a name starting with a dot (`..`, hidden files), a NUL or a control character.
    /// A name longer than a file's name may be (NAME_MAX) is refused as such, and each name is
    /// said back in part (``SoundText/shown(_:)``): a sender's name may be megabytes long.
    public static func nameProblem(_ name: String) -> String? {
        let shown = SoundText.shown(name)
        if name.contains("/") {
            return "'\(shown)' has a slash: a sound file is named by its name in sound.directory, or by its whole path there"
        }
        if name.hasPrefix(".") { return "'\(shown)' starts with a dot: no hidden file or '..' is a sound file" }
        if let problem = controlCharacterProblem(name) { return problem }
        if name.utf8.count > maximumNameBytes {
            return "'\(shown)' is \(name.utf8.count) bytes long; a file's name has at most \(maximumNameBytes) (NAME_MAX)"
        }
        return nil
    }

    /// Why `text` (a name or a path) cannot be one, or nil: a control character, shown as `?`.
    public static func controlCharacterProblem(_ text: String) -> String? {
        func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.generalCategory == .control }
        guard text.unicodeScalars.contains(where: isControl) else { return nil }
        return "'\(SoundText.shown(text).unicodeScalars.map { isControl($0) ? "?" : String($0) }.joined())' has a control character"
    }

    /// NAME_MAX: no longer name is a file's on Linux.
    public static let maximumNameBytes = 255
}

/// How many times a sound plays (B2), as an output applies it once it knows the sound's length
/// (a WAV file's is known when it is read): a count, or as many plays as fill a time (a repeat
/// until someone engages, stopped when they do). Never beyond ``MelodyPlayer``'s bounds: at most
/// 100 plays and 15 minutes in all, a pause of at most 60 s between plays.
public struct SoundRepeat: Sendable, Hashable {
    public enum Plays: Sendable, Hashable {
        case count(Int)
        /// As many plays as fill this time (at least one), within the bounds.
        case filling(Duration)
    }

    public var plays: Plays
    /// Silence between two plays.
    public var pause: Duration

    public init(_ plays: Plays, pause: Duration = .zero) {
        self.plays = plays
        self.pause = min(max(pause, .zero), MelodyPlayer.maximumPause)
    }

    /// How many times a sound `length` long plays: the count asked for, or fewer where that
    /// would pass 15 minutes (a file that grew since it was checked), never fewer than one.
    public func count(forLength length: Duration) -> Int {
        switch plays {
        case .count(let count):
            var count = min(max(count, 1), MelodyPlayer.maximumPlays)
            while count > 1, Self.total(count, length, pause) > MelodyPlayer.maximumLength { count -= 1 }
            return count
        case .filling(let duration):
            return MelodyPlayer.plays(filling: duration, length: length, pause: pause)
        }
    }

    /// The refusal for `count` plays of `name`, `length` long: more than 100, or longer than 15
    /// minutes in all (what the sender asked for cannot be played whole).
    public static func check(_ count: Int, of name: String, length: Duration, pause: Duration = .zero) throws(SoundError) {
        guard (1...MelodyPlayer.maximumPlays).contains(count) else {
            throw SoundError("\(count) plays: 1 to \(MelodyPlayer.maximumPlays) are played")
        }
        let total = total(count, length, pause)
        guard total <= MelodyPlayer.maximumLength else {
            throw SoundError("\(count) plays of '\(name)' last \(total), longer than \(MelodyPlayer.maximumLength)")
        }
    }

    static func total(_ count: Int, _ length: Duration, _ pause: Duration) -> Duration {
        length * count + pause * max(0, count - 1)
    }
}

extension PCMClip {
    /// How long the samples play.
    public var length: Duration {
        sampleRate > 0 ? .nanoseconds(Int64(frameCount) * 1_000_000_000 / Int64(sampleRate)) : .zero
    }
}
