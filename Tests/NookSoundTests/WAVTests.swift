import NookSound
import Testing

/// WAV files as a sound directory holds them, and malformed ones (B2).
@Suite("B2 WAV files")
struct WAVTests {
    static func le(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    static func chunk(_ tag: String, _ body: [UInt8], size: Int? = nil) -> [UInt8] {
        Array(tag.utf8) + Self.le(size ?? body.count, 4) + body + (body.count % 2 == 1 ? [0] : [])
    }

    static func fmt(tag: Int = 1, channels: Int = 1, rate: Int = 8000, bits: Int = 16, blockAlign: Int? = nil) -> [UInt8] {
        let align = blockAlign ?? channels * bits / 8
        let fields: [[UInt8]] = [Self.le(tag, 2), Self.le(channels, 2), Self.le(rate, 4), Self.le(rate * align, 4), Self.le(align, 2), Self.le(bits, 2)]
        return chunk("fmt ", Array(fields.joined()))
    }

    static func wav(_ chunks: [UInt8]...) -> [UInt8] {
        let body = chunks.flatMap { $0 }
        return Array("RIFF".utf8) + Self.le(body.count + 4, 4) + Array("WAVE".utf8) + body
    }

    @Test func b2_sixteenBitMonoIsReadExactly() throws {
        let samples: [Int16] = [0, 1, -1, 32767, -32768, 1234]
        let data = samples.flatMap { Self.le(Int($0), 2) }
        let clip = try WAVFile.decode(Self.wav(Self.fmt(rate: 22050), Self.chunk("data", data)))
        #expect(clip == PCMClip(sampleRate: 22050, channels: 1, samples: samples))
        #expect(clip.frameCount == 6)
    }

    @Test func b2_eightBitIsUnsignedAroundTheMiddle() throws {
        let clip = try WAVFile.decode(Self.wav(Self.fmt(bits: 8), Self.chunk("data", [128, 255, 0, 129])))
        #expect(clip.samples == [0, 127 << 8, -32768, 256])
    }

    @Test func b2_twentyFourBitKeepsItsTopTwoBytes() throws {
        let data: [UInt8] = [0xFF, 0x34, 0x12, 0x00, 0x00, 0x80, 0x80, 0xFF, 0x7F]
        let clip = try WAVFile.decode(Self.wav(Self.fmt(rate: 48000, bits: 24), Self.chunk("data", data)))
        #expect(clip.samples == [0x1234, -32768, 32767])
    }

    @Test func b2_stereoStaysInterleaved() throws {
        let data = [100, -100, 200, -200].flatMap { Self.le($0, 2) }
        let clip = try WAVFile.decode(Self.wav(Self.fmt(channels: 2, rate: 44100), Self.chunk("data", data)))
        #expect(clip == PCMClip(sampleRate: 44100, channels: 2, samples: [100, -100, 200, -200]))
        #expect(clip.frameCount == 2)
    }

    @Test func b2_otherChunksArePassedOverWithTheirPadding() throws {
        // An odd-sized LIST chunk before 'fmt ' carries a pad byte; 'fact' sits between.
        // Field by field, joined once: one long sum of arrays is too much for Swift 6.0's type checker.
        let fields: [[UInt8]] = [Self.le(0xFFFE, 2), Self.le(1, 2), Self.le(16000, 4), Self.le(32000, 4), Self.le(2, 2),
                                 Self.le(16, 2), Self.le(22, 2), Self.le(16, 2), Self.le(4, 4), Self.le(1, 2), Array(repeating: 0x11, count: 14)]
        let extensible = Array(fields.joined())
        let bytes = Self.wav(Self.chunk("LIST", Array("INFOabc".utf8)), Self.chunk("fmt ", extensible),
                             Self.chunk("fact", Self.le(1, 4)), Self.chunk("data", Self.le(-5, 2)))
        #expect(try WAVFile.decode(bytes) == PCMClip(sampleRate: 16000, channels: 1, samples: [-5]))
    }

    @Test func b2_malformedFilesAreRefusedNamingTheChunkAndField() {
        let data = Self.chunk("data", [0, 0])
        let cases: [([UInt8], String)] = [
            (Array("RIFX....WAVE".utf8), "WAV: not a RIFF/WAVE file (the first 12 bytes are not 'RIFF', a size, 'WAVE')"),
            ([], "WAV: not a RIFF/WAVE file (the first 12 bytes are not 'RIFF', a size, 'WAVE')"),
            (Self.wav(data), "WAV: the 'data' chunk comes before a 'fmt ' chunk"),
            (Self.wav(Self.fmt()), "WAV: no 'data' chunk"),
            (Self.wav(), "WAV: no 'fmt ' chunk"),
            (Self.wav(Self.fmt(tag: 3, bits: 16), data), "WAV: 'fmt ' format tag 3 is not integer PCM (1); compressed and float files are not played"),
            (Self.wav(Self.fmt(channels: 3, bits: 16), data), "WAV: 'fmt ' channels 3: only mono and stereo are played"),
            (Self.wav(Self.fmt(rate: 4000), data), "WAV: 'fmt ' sample rate 4000 Hz is outside 8000–192000"),
            (Self.wav(Self.fmt(bits: 12, blockAlign: 2), data), "WAV: 'fmt ' bits per sample 12: only 8, 16 and 24 are played"),
            (Self.wav(Self.fmt(blockAlign: 4), data), "WAV: 'fmt ' block align 4 is not channels × bytes per sample (2)"),
            (Self.wav(Self.chunk("fmt ", [1, 0, 1, 0])), "WAV: the 'fmt ' chunk is 4 bytes, shorter than 16"),
            (Self.wav(Self.fmt(), Self.chunk("data", [1, 2, 3])), "WAV: the 'data' chunk's 3 bytes are not whole frames of 2"),
            (Self.wav(Self.fmt(), Self.chunk("data", [1, 2], size: 100)), "WAV: the 'data' chunk at byte 36 says 100 bytes, but 2 remain"),
            (Self.wav(Self.chunk("fmt ", Self.le(0xFFFE, 2) + Array(repeating: 0, count: 14))),
             "WAV: 'fmt ' is WAVE_FORMAT_EXTENSIBLE but 16 bytes, shorter than 40"),
        ]
        for (bytes, message) in cases {
            #expect(throws: SoundError(message)) { try WAVFile.decode(bytes) }
        }
    }

    @Test func b2_theLengthAndSizeBoundsHold() {
        // 8 kHz 8-bit mono: 60 s is 480 000 bytes; one frame more is refused.
        let long = Self.wav(Self.fmt(rate: 8000, bits: 8), Self.chunk("data", Array(repeating: 128, count: 480_001)))
        #expect(throws: SoundError("WAV: the 'data' chunk's 480001 frames at 8000 Hz last longer than 60 s")) { try WAVFile.decode(long) }
        let exact = Self.wav(Self.fmt(rate: 8000, bits: 8), Self.chunk("data", Array(repeating: 128, count: 480_000)))
        #expect((try? WAVFile.decode(exact))?.frameCount == 480_000)
        let huge = [UInt8](repeating: 0, count: WAVFile.maximumBytes + 1)
        #expect(throws: SoundError("WAV: 33554433 bytes is larger than 33554432 (32 MiB)")) { try WAVFile.decode(huge) }
    }

    /// A file a hostile or careless writer leaves with a lying header: each refused by what lies.
    @Test func b2_aHeaderThatLiesIsRefused() {
        let cases: [([UInt8], String)] = [
            (Self.wav(Self.fmt(), Self.chunk("data", [])), "WAV: the 'data' chunk has no samples"),
            (Self.wav(Self.fmt(channels: 0, blockAlign: 0), Self.chunk("data", [0, 0])), "WAV: 'fmt ' channels 0: only mono and stereo are played"),
            (Self.wav(Self.fmt(rate: 0), Self.chunk("data", [0, 0])), "WAV: 'fmt ' sample rate 0 Hz is outside 8000–192000"),
            (Self.wav(Self.fmt(rate: 4_000_000_000), Self.chunk("data", [0, 0])), "WAV: 'fmt ' sample rate 4000000000 Hz is outside 8000–192000"),
            (Self.wav(Self.fmt(), Self.chunk("data", [0, 0], size: 0xFFFF_FFFF)), "WAV: the 'data' chunk at byte 36 says 4294967295 bytes, but 2 remain"),
        ]
        for (bytes, message) in cases {
            #expect(throws: SoundError(message)) { try WAVFile.decode(bytes) }
        }
    }
}
