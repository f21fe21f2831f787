import NookActivities

/// Melodies made into samples for a PCM output: a sine per note, rests silent.
public enum Synthesizer {
    /// Each note fades in and out over this long (or a quarter of the note, if shorter), so a
    /// note starts and ends at zero and the speaker does not click between notes.
    public static let rampMilliseconds = 5
    /// The loudest sample, at volume 100: headroom below full scale for a small amplifier.
    public static let peak = 26_000.0

    /// Mono samples at `sampleRate` exactly as long as `melody` (each note starts on the sample
    /// its time falls on, so the length never drifts). `volume` (0–100, clamped) sets the
    /// amplitude along a square curve: loudness, not amplitude, is what the scale's steps feel
    /// even in (50 is a quarter of the peak, 10 a hundredth).
    public static func render(_ melody: Melody, sampleRate: Int, volume: Int) -> PCMClip {
        precondition(sampleRate > 0, "a sample rate must be positive")
        let amplitude = self.amplitude(volume)
        var samples = [Int16](repeating: 0, count: frame(at: melody.milliseconds, sampleRate))
        var elapsed = 0
        for tone in melody.tones {
            let start = frame(at: elapsed, sampleRate)
            elapsed += max(0, tone.milliseconds)
            let end = frame(at: elapsed, sampleRate)
            guard !tone.isRest, amplitude > 0, end > start else { continue }
            writeTone(tone.frequency, into: &samples, start..<end, sampleRate: sampleRate, amplitude: amplitude)
        }
        return PCMClip(sampleRate: sampleRate, channels: 1, samples: samples)
    }

    /// One step of a playing melody as samples, for a PCM writer a ``MelodyPlayer`` drives:
    /// placed on the sample grid counted from `start` (the player's), so the steps written one
    /// after another are exactly the melody rendered whole, repeats and pauses included.
    public static func render(_ step: MelodyStep, playingSince start: NookInstant, sampleRate: Int, volume: Int) -> [Int16] {
        precondition(sampleRate > 0, "a sample rate must be positive")
        let first = frame(at: step.start - start, sampleRate)
        let range = 0..<max(0, frame(at: step.end - start, sampleRate) - first)
        var samples = [Int16](repeating: 0, count: range.count)
        let amplitude = self.amplitude(volume)
        if !step.tone.isRest, amplitude > 0, !range.isEmpty {
            writeTone(step.tone.frequency, into: &samples, range, sampleRate: sampleRate, amplitude: amplitude)
        }
        return samples
    }

    static func amplitude(_ volume: Int) -> Double {
        let level = Double(min(100, max(0, volume))) / 100
        return peak * level * level
    }

    static func frame(at milliseconds: Int, _ sampleRate: Int) -> Int {
        max(0, milliseconds) * sampleRate / 1000
    }

    /// The same grid from a duration, to the nanosecond: equal to the above for whole milliseconds.
    static func frame(at offset: Duration, _ sampleRate: Int) -> Int {
        let (seconds, attoseconds) = offset.components
        let nanoseconds = max(0, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        // A player's steps are at most its 15 minutes from its start: no overflow at any rate.
        return nanoseconds * sampleRate / 1_000_000_000
    }

    private static func writeTone(_ frequency: Double, into samples: inout [Int16], _ range: Range<Int>,
                                  sampleRate: Int, amplitude: Double) {
        let count = range.count
        let ramp = max(1, min(rampMilliseconds * sampleRate / 1000, count / 4))
        // A rotating phasor: one sine and cosine per note, not per sample.
        let (stepSine, stepCosine) = sineCosine(2 * Double.pi * frequency / Double(sampleRate))
        var (sine, cosine) = (0.0, 1.0)
        for offset in 0..<count {
            let envelope = min(1, Double(min(offset, count - 1 - offset)) / Double(ramp))
            samples[range.lowerBound + offset] = Int16((amplitude * envelope * sine).rounded())
            (sine, cosine) = (sine * stepCosine + cosine * stepSine, cosine * stepCosine - sine * stepSine)
            if offset % 1024 == 1023 {
                // Rounding would otherwise let the phasor's length creep over a long note.
                let length = (sine * sine + cosine * cosine).squareRoot()
                (sine, cosine) = (sine / length, cosine / length)
            }
        }
    }

    /// sin and cos by their series, after reducing the angle to −π…π: no C math library.
    static func sineCosine(_ angle: Double) -> (Double, Double) {
        let turn = 2 * Double.pi
        var x = angle - turn * (angle / turn).rounded()
        if x > .pi { x -= turn }
        var (sine, cosine) = (0.0, 0.0)
        var term = 1.0
        for power in 0..<30 {
            switch power % 4 {
            case 0: cosine += term
            case 1: sine += term
            case 2: cosine -= term
            default: sine -= term
            }
            term *= x / Double(power + 1)
        }
        return (sine, cosine)
    }
}
