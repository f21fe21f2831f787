import NookActivities
import NookSound
import Testing

/// B3: the room's verdict on a card's sound. Quiet hours and an empty room each lower it to their
/// own level (0: silence), the lowest wins and is named; the priorities let through quiet hours
/// keep the full volume; nothing lowers a sound that is already quieter.
@Suite("B3 the room decides how loud a sound plays")
struct RoomSoundRulesTests {
    let open = RoomSoundRules.Room(quiet: false, empty: false)
    let quiet = RoomSoundRules.Room(quiet: true, empty: false)
    let empty = RoomSoundRules.Room(quiet: false, empty: true)
    let both = RoomSoundRules.Room(quiet: true, empty: true)

    @Test func b3_quietHoursSilenceEverySoundByDefaultAndNothingElseChanges() {
        let rules = RoomSoundRules(volume: 80)
        for priority in NookActivityPriority.allCases {
            #expect(rules.verdict(for: priority, in: open) == .play(volume: 80, loweredBy: nil))
            #expect(rules.verdict(for: priority, in: quiet) == .silenced(by: "quiet hours"))
            #expect(rules.verdict(for: priority, in: empty) == .play(volume: 80, loweredBy: nil), "an empty room changes nothing unless set")
        }
    }

    @Test func b3_theLetThroughPrioritiesKeepTheFullVolumeWhileQuietTheRestAreLowered() {
        let rules = RoomSoundRules(volume: 80, quietVolume: 20, quietThrough: .high)
        #expect(rules.verdict(for: .high, in: quiet) == .play(volume: 80, loweredBy: nil))
        #expect(rules.verdict(for: .normal, in: quiet) == .play(volume: 20, loweredBy: "quiet hours"))
        #expect(rules.verdict(for: .low, in: quiet) == .play(volume: 20, loweredBy: "quiet hours"))
        let everything = RoomSoundRules(volume: 80, quietVolume: 0, quietThrough: .low)
        #expect(everything.verdict(for: .low, in: quiet) == .play(volume: 80, loweredBy: nil))
    }

    @Test func b3_anEmptyRoomAndQuietHoursTheLowestWinsAndIsNamed() {
        let rules = RoomSoundRules(volume: 80, quietVolume: 30, awayVolume: 10)
        #expect(rules.verdict(for: .normal, in: empty) == .play(volume: 10, loweredBy: "nobody there"))
        #expect(rules.verdict(for: .normal, in: both) == .play(volume: 10, loweredBy: "nobody there"))
        let same = RoomSoundRules(volume: 80, quietVolume: 30, awayVolume: 30)
        #expect(same.verdict(for: .normal, in: both) == .play(volume: 30, loweredBy: "quiet hours, nobody there"))
        let silentAway = RoomSoundRules(volume: 80, quietVolume: 30, awayVolume: 0)
        #expect(silentAway.verdict(for: .high, in: both) == .silenced(by: "nobody there"))
        // Let through quiet hours is not let through an empty room.
        let through = RoomSoundRules(volume: 80, quietVolume: 0, quietThrough: .high, awayVolume: 40)
        #expect(through.verdict(for: .high, in: both) == .play(volume: 40, loweredBy: "nobody there"))
    }

    @Test func b3_aLevelAboveTheVolumeLowersNothingAndVolumeZeroIsSilenceNotAPlayedSound() {
        let loud = RoomSoundRules(volume: 30, quietVolume: 60, awayVolume: 90)
        #expect(loud.verdict(for: .normal, in: both) == .play(volume: 30, loweredBy: nil))
        #expect(RoomSoundRules(volume: 0).verdict(for: .high, in: open) == .silenced(by: "sound.volume is 0"))
    }

    @Test func b3_theVerdictReadsAsTheHistoryEntrySaysIt() {
        #expect(RoomSoundRules.Verdict.play(volume: 80, loweredBy: nil).description == "played")
        #expect(RoomSoundRules.Verdict.play(volume: 20, loweredBy: "quiet hours").description == "played at 20 (quiet hours)")
        #expect(RoomSoundRules.Verdict.silenced(by: "nobody there").description == "silenced (nobody there)")
    }
}

/// A beeper has no volume: a level the room lowers a sound to would sound at full loudness, so the
/// verdict says that, not `played at 20`; 0 still silences it.
@Suite("B3 the room and an output without a volume")
struct RoomSoundWithoutVolumeTests {
    @Test func b3_onAnOutputWithoutAVolumeALoweredSoundSaysItPlayedAtFullLoudness() {
        let rules = RoomSoundRules(volume: 80, quietVolume: 20)
        let (open, quiet) = (RoomSoundRules.Room(quiet: false, empty: false), RoomSoundRules.Room(quiet: true, empty: false))
        let beeped = rules.verdict(for: .normal, in: quiet, hasVolume: false)
        #expect(beeped == .notLowered(volume: 20, by: "quiet hours"))
        #expect(beeped.description == "played at full loudness (quiet hours would play it at 20; the output has no volume)")
        #expect(rules.verdict(for: .normal, in: quiet, hasVolume: true) == .play(volume: 20, loweredBy: "quiet hours"))
        #expect(rules.verdict(for: .normal, in: open, hasVolume: false) == .play(volume: 80, loweredBy: nil))
        #expect(RoomSoundRules(volume: 80).verdict(for: .normal, in: quiet, hasVolume: false) == .silenced(by: "quiet hours"))
    }

    /// `status` counts what the room silenced: a volume of 0 in nook.toml or asked by a sender
    /// is no room's doing.
    @Test func b3_onlyQuietHoursAndAnEmptyRoomCountAsTheRoomsSilence() {
        let (open, quiet, empty) = (RoomSoundRules.Room(quiet: false, empty: false), RoomSoundRules.Room(quiet: true, empty: false),
                                    RoomSoundRules.Room(quiet: false, empty: true))
        #expect(RoomSoundRules(volume: 80).verdict(for: .normal, in: quiet, hasVolume: true).silencedByTheRoom)
        #expect(RoomSoundRules(volume: 80, awayVolume: 0).verdict(for: .normal, in: empty, hasVolume: true).silencedByTheRoom)
        let off = RoomSoundRules(volume: 0).verdict(for: .normal, in: open, hasVolume: true)
        #expect(off == .silenced(by: "sound.volume is 0") && !off.silencedByTheRoom)
        let asked = RoomSoundRules(volume: 80).verdict(for: .normal, in: open, hasVolume: true, asked: 0)
        #expect(asked == .silenced(by: "volume 0 asked") && !asked.silencedByTheRoom)
        #expect(!RoomSoundRules(volume: 80).verdict(for: .normal, in: open, hasVolume: true).silencedByTheRoom)
    }
}
