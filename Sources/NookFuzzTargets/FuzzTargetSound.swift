import NookSound

extension FuzzTarget {
    static func rtttlString(_ bytes: UnsafeBufferPointer<UInt8>) {
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            let melody = try RTTTL.parse(text)
            guard melody.tones.count <= RTTTL.maximumNotes, melody.milliseconds <= RTTTL.maximumMilliseconds else {
                fatalError("a melody past the bounds: \(melody.tones.count) notes, \(melody.milliseconds) ms")
            }
            let lowest = Pitch.frequency(semitone: 0, octave: RTTTL.octaves.lowerBound)
            let highest = Pitch.frequency(semitone: 12, octave: RTTTL.octaves.upperBound)
            for tone in melody.tones {
                guard tone.milliseconds > 0, tone.isRest || (lowest...highest).contains(tone.frequency) else {
                    fatalError("a note out of range: \(tone)")
                }
            }
        } catch {
            let characters = text.unicodeScalars.count
            guard !error.message.isEmpty, let position = error.position, position >= 1, position <= characters + 1 else {
                fatalError("an RTTTL error without a message or a place in the string: \(error)")
            }
        }
    }

    static func wavFile(_ bytes: UnsafeBufferPointer<UInt8>) {
        do {
            let clip = try WAVFile.decode(Array(bytes))
            guard [1, 2].contains(clip.channels), WAVFile.sampleRates.contains(clip.sampleRate),
                  clip.samples.count % clip.channels == 0,
                  clip.frameCount <= WAVFile.maximumSeconds * clip.sampleRate else {
                fatalError("a clip past the bounds: \(clip.channels) channels at \(clip.sampleRate) Hz, \(clip.samples.count) samples")
            }
        } catch {
            guard error.message.hasPrefix("WAV: ") else { fatalError("a WAV error that does not say so: \(error)") }
        }
    }
}
