/// Writes small WAV files for tests (B2): 16-bit integer PCM, as a sound file a user copies into
/// the sound directory is.
public enum TestWAV {
    /// A RIFF/WAVE file of `samples` (interleaved by `channels`) at `rate`.
    public static func bytes(_ samples: [Int16], rate: Int = 8_000, channels: Int = 1) -> [UInt8] {
        func le(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let data = samples.flatMap { le(Int(UInt16(bitPattern: $0)), 2) }
        let format = le(1, 2) + le(channels, 2) + le(rate, 4) + le(rate * channels * 2, 4) + le(channels * 2, 2) + le(16, 2)
        let body = Array("WAVE".utf8) + Array("fmt ".utf8) + le(format.count, 4) + format + Array("data".utf8) + le(data.count, 4) + data
        return Array("RIFF".utf8) + le(body.count, 4) + body
    }
}
