import NookActivities
import NookSound
import Testing

/// Melodies synthesised for a PCM output, judged by their samples (B1, B2).
@Suite("B2 synthesis")
struct SynthesizerTests {
    /// Upward zero crossings in `samples`: one per cycle of a clean tone.
    static func rises(_ samples: ArraySlice<Int16>) -> Int {
        zip(samples, samples.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
    }

    @Test func b2_aToneHasItsPitchAndTheMelodyItsLength() throws {
        let melody = try RTTTL.parse("x:d=4,o=4,b=60:a,8p,c6")
        let clip = Synthesizer.render(melody, sampleRate: 48_000, volume: 100)
        #expect(clip.sampleRate == 48_000 && clip.channels == 1)
        // 1 s of A4, 0.5 s of rest, 1 s of C6: 2.5 s to the sample.
        #expect(clip.samples.count == 120_000)
        #expect((439...441).contains(Self.rises(clip.samples[0..<48_000])))
        #expect((1046...1047).contains(Self.rises(clip.samples[72_000..<120_000])))
        #expect(clip.samples[48_000..<72_000].allSatisfy { $0 == 0 })
    }

    @Test func b2_notesStartAndEndAtZeroSoNothingClicks() throws {
        let melody = Melody(name: "two", tones: [Tone(frequency: 440, milliseconds: 100), Tone(frequency: 660, milliseconds: 100)])
        let clip = Synthesizer.render(melody, sampleRate: 8_000, volume: 100)
        #expect(clip.samples.count == 1_600)
        for edge in [0, 799, 800, 1_599] {
            #expect(abs(Int(clip.samples[edge])) < 300, "sample \(edge) is \(clip.samples[edge])")
        }
        // No step between neighbours is larger than the loudest tone's own slope allows.
        let largestStep = zip(clip.samples, clip.samples.dropFirst()).map { abs(Int($1) - Int($0)) }.max() ?? 0
        let slope = Synthesizer.peak * 2 * Double.pi * 660 / 8_000
        #expect(Double(largestStep) <= slope + 1)
    }

    @Test func b2_volumeScalesTheAmplitudeAndZeroIsSilent() throws {
        let melody = Melody(name: "a", tones: [Tone(frequency: 440, milliseconds: 200)])
        func peak(_ volume: Int) -> Int { Synthesizer.render(melody, sampleRate: 16_000, volume: volume).samples.map { abs(Int($0)) }.max() ?? 0 }
        #expect((25_800...26_000).contains(peak(100)))
        #expect((6_450...6_550).contains(peak(50)))
        #expect(peak(0) == 0)
        #expect(peak(150) == peak(100))
        #expect(Synthesizer.render(melody, sampleRate: 16_000, volume: 0).samples.count == 3_200)
    }

    @Test func b2_lengthsDoNotDriftOverManyShortNotes() {
        // 7 ms notes at 44.1 kHz are 308.7 samples each: each note starts on its own sample.
        let melody = Melody(name: "fast", tones: Array(repeating: Tone(frequency: 1000, milliseconds: 7), count: 1000))
        #expect(Synthesizer.render(melody, sampleRate: 44_100, volume: 60).samples.count == 308_700)
    }
}

/// A PCM writer driven by the player: each step's samples, appended as they are handed over.
struct PCMWriterSink: MelodySink {
    let start: NookInstant
    let sampleRate: Int
    var samples: [Int16] = []
    var ending: MelodyEnding?

    mutating func play(_ step: MelodyStep) {
        samples += Synthesizer.render(step, playingSince: start, sampleRate: sampleRate, volume: 80)
    }

    mutating func end(_ ending: MelodyEnding) { self.ending = ending }
}

@Suite("B2 a PCM writer on the player")
struct PCMWriterTests {
    @Test(arguments: [8_000, 44_100, 48_000])
    func b2_stepsWrittenOneAfterAnotherAreTheMelodyRenderedWhole(sampleRate: Int) throws {
        let melody = try RTTTL.parse("x:d=16,o=6,b=147:c,p,8e.,32g")
        let start = NookInstant.origin + .milliseconds(1_234)
        var player = try MelodyPlayer(melody, plays: 2, pause: .milliseconds(33), lead: .milliseconds(50), startingAt: start)
        var sink = PCMWriterSink(start: start, sampleRate: sampleRate)
        var now = start - .milliseconds(50)
        // Bounded, so a player that stops moving fails the test instead of hanging it.
        for _ in 0..<1_000 {
            guard let deadline = player.nextDeadline(after: now) else { break }
            now = deadline
            player.update(now: now, sink: &sink)
        }
        #expect(player.isFinished)
        let pause = Melody(name: "pause", tones: [Tone(frequency: 0, milliseconds: 33)])
        let whole = Melody(name: "whole", tones: melody.tones + pause.tones + melody.tones)
        let expected = Synthesizer.render(whole, sampleRate: sampleRate, volume: 80).samples
        // Compared sample by sample, naming the first that differs rather than printing both.
        #expect(sink.samples.count == expected.count)
        #expect(zip(sink.samples, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset == nil)
        #expect(sink.ending == MelodyEnding(reason: .finished, at: player.end, skipped: 0))
    }
}
