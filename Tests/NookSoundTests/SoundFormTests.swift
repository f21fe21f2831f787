import NookActivities
import NookSound
import Testing

/// B2: the three kinds of sound are told apart by their form alone, so no chime's name or RTTTL
/// string is ever taken for a file; a repeat's plays stay within 100 and 15 minutes.
@Suite("B2 sound forms and repeats")
struct SoundFormTests {
    @Test func b2_aWAVFilesNameEndsInDotWAVAndCollidesWithNoChimeOrRTTTLString() throws {
        for name in ["knock.wav", "Door Bell.WAV", "a.Wav"] { #expect(SoundText.namesFile(name), "\(name)") }
        for text in ["doorbell", "wav", ".wav", "knock.wave", "file:d=4:c.wav", "x.wav:d=4,o=5,b=100:c"] {
            #expect(!SoundText.namesFile(text), "\(text)")
        }
        for name in Chimes.names { #expect(!SoundText.namesFile(name), "\(name)") }
        #expect(throws: SoundError.self) { try SoundText.melody("knock.wav") }
        do { _ = try SoundText.melody("knock.wav") } catch { #expect(error.message.contains("names a WAV file ('knock.wav')"), "\(error)") }
        #expect(try SoundText.melody("doorbell").name == "doorbell", "a chime is still a chime")
    }

    @Test func b2_aRepeatsPlaysStayWithinAHundredAndFifteenMinutes() throws {
        let second = Duration.seconds(1)
        #expect(SoundRepeat(.count(3)).count(forLength: second) == 3)
        #expect(SoundRepeat(.count(100)).count(forLength: .seconds(60)) == 15, "cut down to 15 minutes (a file grew since it was checked)")
        #expect(SoundRepeat(.count(2)).count(forLength: .seconds(20 * 60)) == 1, "never fewer than one")
        #expect(SoundRepeat(.filling(.seconds(10)), pause: second).count(forLength: second) == 6,
                "1 s plays and 1 s pauses fill 10 s with the sixth play: the time is filled, the repeat stopped at its end")
        #expect(SoundRepeat(.filling(.seconds(15 * 60))).count(forLength: .milliseconds(100)) == 100, "at most 100 plays")
        #expect(SoundRepeat(.count(2), pause: .seconds(600)).pause == .seconds(60), "a pause is at most 60 s")
        #expect(throws: SoundError("101 plays: 1 to 100 are played")) { try SoundRepeat.check(101, of: "bell", length: second) }
        #expect(throws: SoundError.self) { try SoundRepeat.check(16, of: "a minute", length: .seconds(60)) }
        try SoundRepeat.check(15, of: "a minute", length: .seconds(60))
    }
}
