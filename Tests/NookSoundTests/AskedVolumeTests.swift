import NookActivities
import NookSound
import Testing

/// B3 and B4: a sound with no card may ask for its own volume. It plays at that level, never
/// louder than `sound.volume`, and the room lowers or silences it as it does a card's sound, by
/// the priority it was given.
@Suite("B3 B4 a sound's own volume under the room's rules")
struct AskedVolumeTests {
    let open = RoomSoundRules.Room(quiet: false, empty: false)
    let quiet = RoomSoundRules.Room(quiet: true, empty: false)
    let empty = RoomSoundRules.Room(quiet: false, empty: true)

    @Test func b4_noVolumeAskedIsTheCardsVerdictAndALowerOneIsNoLowering() {
        let rules = RoomSoundRules(volume: 80, quietVolume: 20, quietThrough: .high, awayVolume: 40)
        for room in [open, quiet, empty] {
            for priority in NookActivityPriority.allCases {
                #expect(rules.verdict(for: priority, in: room, hasVolume: true, asked: nil) == rules.verdict(for: priority, in: room, hasVolume: true))
            }
        }
        #expect(rules.verdict(for: .normal, in: open, hasVolume: true, asked: 30) == .play(volume: 30, loweredBy: nil))
        // Quieter than quiet hours' level already: the room lowers nothing.
        #expect(rules.verdict(for: .normal, in: quiet, hasVolume: true, asked: 10) == .play(volume: 10, loweredBy: nil))
    }

    @Test func b3_anAskedVolumeIsNeverLouderThanTheRoomAllows() {
        let rules = RoomSoundRules(volume: 60, quietVolume: 20, quietThrough: .high, awayVolume: 40)
        #expect(rules.verdict(for: .normal, in: open, hasVolume: true, asked: 100) == .play(volume: 60, loweredBy: nil), "sound.volume caps it")
        #expect(rules.verdict(for: .normal, in: quiet, hasVolume: true, asked: 50) == .play(volume: 20, loweredBy: "quiet hours"))
        #expect(rules.verdict(for: .high, in: quiet, hasVolume: true, asked: 50) == .play(volume: 50, loweredBy: nil), "let through quiet hours")
        #expect(rules.verdict(for: .high, in: empty, hasVolume: true, asked: 50) == .play(volume: 40, loweredBy: "nobody there"))
        let silent = RoomSoundRules(volume: 80)
        #expect(silent.verdict(for: .low, in: quiet, hasVolume: true, asked: 100) == .silenced(by: "quiet hours"))
        #expect(silent.verdict(for: .low, in: open, hasVolume: true, asked: 0) == .silenced(by: "volume 0 asked"))
        #expect(RoomSoundRules(volume: 0).verdict(for: .high, in: open, hasVolume: true, asked: 50) == .silenced(by: "sound.volume is 0"))
    }

    /// A beeper sounds or not: a room that lowers a sound asked at 50 still sounds it at full loudness, and says so.
    @Test func b3_onABeeperTheRoomsLowerLevelIsSaidNotToApply() {
        let rules = RoomSoundRules(volume: 80, quietVolume: 20)
        #expect(rules.verdict(for: .normal, in: quiet, hasVolume: false, asked: 50) == .notLowered(volume: 20, by: "quiet hours"))
        #expect(rules.verdict(for: .normal, in: open, hasVolume: false, asked: 50) == .play(volume: 50, loweredBy: nil))
    }
}
