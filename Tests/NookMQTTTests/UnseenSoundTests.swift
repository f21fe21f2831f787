@testable import NookMQTT
import Testing

/// B4: Home Assistant's siren is on while the output plays, read from nookd's status at most every
/// 50 ms; a sound that began and ended between two reads is still published as on, then off.
@Suite("B4 a sound too short to be read still turns the siren on")
struct UnseenSoundTests {
    @Test func b4_e7_aSoundThatPlayedBetweenTwoReadsIsOnceOnAndOnlyThen() {
        func unseen(_ plays: Int?, _ before: Int?, _ sound: String, _ published: String?) -> Bool {
            BoardState.soundUnseen(plays: plays, playsBefore: before, sound: sound, publishedSound: published)
        }
        #expect(unseen(4, 3, "idle", "idle"), "one more played, never seen playing")
        #expect(unseen(5, 3, "idle", "idle"), "two short ones: one on, as Home Assistant would see them")
        #expect(!unseen(3, 3, "idle", "idle"), "none played")
        #expect(!unseen(4, 3, "playing", "idle"), "this read sees it (or the next one) playing")
        #expect(!unseen(4, 3, "idle", "playing"), "the last state said playing: its end is this one")
        #expect(!unseen(0, 3, "idle", "idle"), "nookd started again: its count did too")
        #expect(!unseen(1, nil, "idle", "idle"), "the first read on a connection to nookd has nothing to compare with")
        #expect(!unseen(4, 3, "idle", nil), "nothing published yet this session: a sound nobody heard is not announced late")
        #expect(!unseen(nil, 3, "none", "idle"), "no output")
    }
}
