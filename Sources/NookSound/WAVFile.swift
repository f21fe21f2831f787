/// RIFF/WAVE files as sound files are written: integer PCM (format 1, or WAVE_FORMAT_EXTENSIBLE
/// with the PCM sub-format), 8, 16 or 24 bits, mono or stereo, 8–192 kHz. Chunks other than
/// `fmt ` and `data` (LIST, fact, cue …) are passed over. Samples become signed 16-bit.
public enum WAVFile {
    /// The largest file read.
    public static let maximumBytes = 32 * 1024 * 1024
    /// The longest sound played: a chime, not a song.
    public static let maximumSeconds = 60
    public static let sampleRates: ClosedRange<Int> = 8_000...192_000

    public static func decode(_ bytes: [UInt8]) throws(SoundError) -> PCMClip {
        guard bytes.count <= maximumBytes else {
            throw SoundError("WAV: \(bytes.count) bytes is larger than \(maximumBytes) (32 MiB)")
        }
        guard bytes.count >= 12, bytes.tag(at: 0) == "RIFF", bytes.tag(at: 8) == "WAVE" else {
            throw SoundError("WAV: not a RIFF/WAVE file (the first 12 bytes are not 'RIFF', a size, 'WAVE')")
        }
        // Writers that stream leave the RIFF size wrong or at its maximum: the chunks are read
        // to the end of the bytes instead.
        var offset = 12
        var format: Format?
        while offset + 8 <= bytes.count {
            let tag = bytes.tag(at: offset)
            let size = Int(bytes.littleEndian(at: offset + 4, count: 4))
            let body = offset + 8
            guard size <= bytes.count - body else {
                throw SoundError("WAV: the '\(tag)' chunk at byte \(offset) says \(size) bytes, but \(bytes.count - body) remain")
            }
            switch tag {
            case "fmt ":
                format = try Format(bytes, at: body, size: size)
            case "data":
                guard let format else { throw SoundError("WAV: the 'data' chunk comes before a 'fmt ' chunk") }
                return try format.clip(bytes[body..<(body + size)])
            default:
                break
            }
            offset = body + size + size % 2
        }
        throw SoundError(format == nil ? "WAV: no 'fmt ' chunk" : "WAV: no 'data' chunk")
    }

    struct Format {
        var channels: Int
        var sampleRate: Int
        var bits: Int

        init(_ bytes: [UInt8], at body: Int, size: Int) throws(SoundError) {
            guard size >= 16 else { throw SoundError("WAV: the 'fmt ' chunk is \(size) bytes, shorter than 16") }
            let tag = bytes.littleEndian(at: body, count: 2)
            channels = Int(bytes.littleEndian(at: body + 2, count: 2))
            sampleRate = Int(bytes.littleEndian(at: body + 4, count: 4))
            let blockAlign = Int(bytes.littleEndian(at: body + 12, count: 2))
            bits = Int(bytes.littleEndian(at: body + 14, count: 2))
            switch tag {
            case 1:
                break
            case 0xFFFE:
                // WAVE_FORMAT_EXTENSIBLE: the real format is the sub-format GUID's first two bytes.
                guard size >= 40 else { throw SoundError("WAV: 'fmt ' is WAVE_FORMAT_EXTENSIBLE but \(size) bytes, shorter than 40") }
                let subformat = bytes.littleEndian(at: body + 24, count: 2)
                guard subformat == 1 else { throw SoundError("WAV: 'fmt ' sub-format \(subformat) is not integer PCM (1)") }
            default:
                throw SoundError("WAV: 'fmt ' format tag \(tag) is not integer PCM (1); compressed and float files are not played")
            }
            guard channels == 1 || channels == 2 else { throw SoundError("WAV: 'fmt ' channels \(channels): only mono and stereo are played") }
            guard WAVFile.sampleRates.contains(sampleRate) else {
                throw SoundError("WAV: 'fmt ' sample rate \(sampleRate) Hz is outside 8000–192000")
            }
            guard [8, 16, 24].contains(bits) else { throw SoundError("WAV: 'fmt ' bits per sample \(bits): only 8, 16 and 24 are played") }
            guard blockAlign == channels * bits / 8 else {
                throw SoundError("WAV: 'fmt ' block align \(blockAlign) is not channels × bytes per sample (\(channels * bits / 8))")
            }
        }

        func clip(_ data: ArraySlice<UInt8>) throws(SoundError) -> PCMClip {
            let width = bits / 8
            let frameBytes = channels * width
            guard data.count % frameBytes == 0 else {
                throw SoundError("WAV: the 'data' chunk's \(data.count) bytes are not whole frames of \(frameBytes)")
            }
            let frames = data.count / frameBytes
            // Nothing would sound, yet the card's entry would say its sound played.
            guard frames > 0 else { throw SoundError("WAV: the 'data' chunk has no samples") }
            guard frames <= WAVFile.maximumSeconds * sampleRate else {
                throw SoundError("WAV: the 'data' chunk's \(frames) frames at \(sampleRate) Hz last longer than \(WAVFile.maximumSeconds) s")
            }
            var samples = [Int16]()
            samples.reserveCapacity(frames * channels)
            var index = data.startIndex
            while index < data.endIndex {
                switch width {
                // 8-bit WAV is unsigned around 128; wider samples are signed, and 24-bit keeps
                // its top two bytes.
                case 1: samples.append(Int16(Int(data[index]) - 128) << 8)
                case 2: samples.append(Int16(bitPattern: UInt16(data[index]) | UInt16(data[index + 1]) << 8))
                default: samples.append(Int16(bitPattern: UInt16(data[index + 1]) | UInt16(data[index + 2]) << 8))
                }
                index += width
            }
            return PCMClip(sampleRate: sampleRate, channels: channels, samples: samples)
        }
    }
}

extension [UInt8] {
    /// Four bytes as the ASCII tag they spell, unprintable bytes as '?'.
    func tag(at offset: Int) -> String {
        String(decoding: self[offset..<(offset + 4)].map { (32...126).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }

    func littleEndian(at offset: Int, count: Int) -> UInt32 {
        (0..<count).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32(self[offset + $1]) }
    }
}
