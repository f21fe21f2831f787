import Foundation
import NookSound
import Testing

/// RTTTL read as the ringtone collections and AWTRIX's senders write it (B2).
@Suite("B2 RTTTL melodies")
struct RTTTLTests {
    /// Equal temperament from A4 = 440 Hz, worked out here independently of the parser.
    static func hertz(_ midi: Int) -> Double { 440 * pow(2, Double(midi - 69) / 12) }

    static func expect(_ tones: [Tone], _ expected: [(midi: Int?, milliseconds: Int)], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(tones.count == expected.count, sourceLocation: sourceLocation)
        for (tone, want) in zip(tones, expected) {
            let frequency = want.midi.map(hertz) ?? 0
            #expect(abs(tone.frequency - frequency) < 1e-9, "\(tone) should be \(frequency) Hz", sourceLocation: sourceLocation)
            #expect(tone.milliseconds == want.milliseconds, sourceLocation: sourceLocation)
        }
    }

    @Test func b2_theNokiaTuneHasItsExactPitchesAndLengths() throws {
        let melody = try RTTTL.parse("Nokia:d=4,o=5,b=225:8e6,8d6,f#,g#,8c#6,8b,d,e,8b,8a,c#,e,2a")
        #expect(melody.name == "Nokia")
        // b=225: a whole note is 240000 / 225 = 1066.7 ms; an eighth 133, a quarter 267, a half 533.
        Self.expect(melody.tones, [
            (88, 133), (86, 133), (78, 267), (80, 267), (85, 133), (83, 133), (74, 267), (76, 267),
            (83, 133), (81, 133), (73, 267), (76, 267), (81, 533),
        ])
        #expect(abs(melody.tones[0].frequency - 1318.5102276514797) < 1e-9)
        #expect(melody.tones[12].frequency == 880)
    }

    @Test func b2_leftOutSettingsAreD4O6B63() throws {
        let melody = try RTTTL.parse("plain::c,a")
        // A quarter at 63 beats a minute: 60000 / 63 = 952.4 ms.
        Self.expect(melody.tones, [(84, 952), (93, 952)])
        #expect(melody.tones[1].frequency == 1760)
    }

    @Test func b2_aDotBeforeOrAfterTheOctaveAddsHalf() throws {
        let melody = try RTTTL.parse("dots:d=4,o=5,b=120:4c.6,4c6.,8p.,16g.,c")
        Self.expect(melody.tones, [(84, 750), (84, 750), (nil, 375), (79, 188), (72, 500)])
    }

    @Test func b2_sharpsPausesAndEveryDuration() throws {
        let melody = try RTTTL.parse("all:d=8,o=5,b=60:1c,2c#,4d#,8p,16f#,32a#,b,h,e#")
        // At 60 beats a minute a whole note is 4 s; e# is f, and h is b as German collections write.
        Self.expect(melody.tones, [
            (72, 4000), (73, 2000), (75, 1000), (nil, 500), (78, 250), (82, 125), (83, 500), (83, 500), (77, 500),
        ])
    }

    @Test func b2_theOctavesCollectionsUseFrom3To8() throws {
        let melody = try RTTTL.parse("range:d=16,o=5,b=200:a3,a4,a5,a6,a7,c8")
        #expect(melody.tones.map(\.frequency).prefix(5) == [220, 440, 880, 1760, 3520])
        #expect(abs(melody.tones[5].frequency - 4186.009044809578) < 1e-9)
    }

    @Test func b2_whitespaceCaseAndATrailingCommaAreTolerated() throws {
        let tidy = try RTTTL.parse("TakeOnMe:d=4,o=4,b=160:8f#5,8f#5,8d5,8p")
        let loose = try RTTTL.parse("  TakeOnMe : B=160 , O = 4,D=4 :\n 8F#5 , 8f#5,\t8D5 ,8P ,\n")
        #expect(loose == tidy)
        #expect(tidy.tones.count == 4)
    }

    @Test func b2_aRealCollectionsLongTuneParses() throws {
        // The ESPHome/AWTRIX collection's Mario intro, as senders paste it.
        let mario = "mario:d=4,o=5,b=100:16e6,16e6,32p,8e6,16c6,8e6,8g6,8p,8g,8p,8c6,16p,8g,16p,8e,16p,8a,8b,16a#,8a,16g.,16e6,16g6,8a6,16f6,8g6,8e6,16c6,16d6,8b"
        let melody = try RTTTL.parse(mario)
        #expect(melody.tones.count == 30)
        #expect(melody.tones[2] == Tone(frequency: 0, milliseconds: 75))
        #expect(melody.tones[20].milliseconds == 225)
        #expect(melody.milliseconds == melody.tones.reduce(0) { $0 + $1.milliseconds })
    }

    @Test func b2_theBoundsHoldAtTheirEdges() throws {
        // 60 s exactly is allowed: one whole note at 4 beats a minute.
        #expect(try RTTTL.parse("long:d=1,o=5,b=4:c").milliseconds == 60_000)
        let notes = Array(repeating: "c", count: RTTTL.maximumNotes).joined(separator: ",")
        #expect(try RTTTL.parse("many:d=32,b=900:" + notes).tones.count == RTTTL.maximumNotes)
        let padded = "pad:b=900:c" + String(repeating: " ", count: RTTTL.maximumLength - 11)
        #expect(padded.count == RTTTL.maximumLength)
        #expect(try RTTTL.parse(padded).tones.count == 1)
    }
}
