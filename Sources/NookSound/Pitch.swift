/// Equal temperament with A4 = 440 Hz: what RTTTL's notes and the chimes sound at.
public enum Pitch {
    /// 2^(k/12) for k = 0…11, written out so no C math library is needed.
    private static let semitoneRatios: [Double] = [
        1.0, 1.0594630943592953, 1.122462048309373, 1.189207115002721,
        1.2599210498948732, 1.3348398541700344, 1.4142135623730951, 1.4983070768766815,
        1.5874010519681994, 1.681792830507429, 1.7817974362806785, 1.8877486253633868,
    ]

    /// The frequency of a note: `semitone` above C (0…11; 12 is the next octave's C) in
    /// scientific octave `octave` (C4 is middle C, A4 is 440 Hz).
    public static func frequency(semitone: Int, octave: Int) -> Double {
        let fromA4 = octave * 12 + semitone - (4 * 12 + 9)
        let octaves = fromA4 >= 0 ? fromA4 / 12 : -((11 - fromA4) / 12)
        let step = fromA4 - octaves * 12
        var frequency = 440.0 * semitoneRatios[step]
        if octaves >= 0 {
            for _ in 0..<octaves { frequency *= 2 }
        } else {
            for _ in 0..<(-octaves) { frequency /= 2 }
        }
        return frequency
    }
}
