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
}
