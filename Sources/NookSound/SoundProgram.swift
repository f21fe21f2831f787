/// One note of a melody: a pitch held for a time, or a rest (frequency 0).
public struct Tone: Sendable, Hashable {
    /// Hertz; 0 is a rest.
    public var frequency: Double
    public var milliseconds: Int

    public init(frequency: Double, milliseconds: Int) {
        (self.frequency, self.milliseconds) = (frequency, milliseconds)
    }

    public var isRest: Bool { frequency <= 0 }
}

/// Tones played one after another: what a beeper can play, and what a PCM output synthesises.
public struct Melody: Sendable, Hashable {
    /// The name a sender gave it (an RTTTL string's name, a chime's name), for logs and history.
    public var name: String
    public var tones: [Tone]

    public init(name: String, tones: [Tone]) {
        (self.name, self.tones) = (name, tones)
    }

    public var milliseconds: Int { tones.reduce(0) { $0 + $1.milliseconds } }
}

/// Signed 16-bit samples, interleaved by channel: a WAV file's content, or a melody synthesised.
public struct PCMClip: Sendable, Equatable {
    public var sampleRate: Int
    public var channels: Int
    public var samples: [Int16]

    public init(sampleRate: Int, channels: Int, samples: [Int16]) {
        (self.sampleRate, self.channels, self.samples) = (sampleRate, channels, samples)
    }

    public var frameCount: Int { channels > 0 ? samples.count / channels : 0 }
}

/// What an output is handed: tones (a beeper plays them, a PCM output synthesises them) or
/// samples (a PCM output only: a beeper cannot play a WAV file, and says so).
public enum SoundProgram: Sendable, Equatable {
    case tones(Melody)
    case samples(name: String, PCMClip)
    /// A WAV file in the sound directory, read when it plays, on the output's thread: the file
    /// may have changed since it was checked, and reading it never holds the screen or a queue.
    case file(SoundFile)
    /// One of the above played more than once (B2), within ``SoundRepeat``'s bounds.
    indirect case repeated(SoundProgram, SoundRepeat)

    /// For logs and history: the melody's or the file's name.
    public var name: String {
        switch self {
        case .tones(let melody): melody.name
        case .samples(let name, _): name
        case .file(let file): file.name
        case .repeated(let program, _): program.name
        }
    }

    /// The program played, and how many times: once unless ``repeated(_:_:)``.
    public var played: (program: SoundProgram, repeat: SoundRepeat?) {
        if case .repeated(let program, let plays) = self { return (program.played.program, plays) }
        return (self, nil)
    }
}
