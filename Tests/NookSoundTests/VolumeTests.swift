import NookSound
import Testing

/// AWTRIX's 0–30 and LaMetric's 0–100 on Nook's 0–100 (B3).
@Suite("B3 volume scales")
struct VolumeTests {
    @Test func b3_awtrixStepsMapOntoNooksScaleAndBack() throws {
        #expect(try SoundVolume.fromAWTRIX(0) == 0)
        #expect(try SoundVolume.fromAWTRIX(1) == 3)
        #expect(try SoundVolume.fromAWTRIX(15) == 50)
        // To the nearest, not down: 2 is 6.7, 29 is 96.7.
        #expect(try SoundVolume.fromAWTRIX(2) == 7)
        #expect(try SoundVolume.fromAWTRIX(29) == 97)
        #expect(try SoundVolume.fromAWTRIX(30) == 100)
        for level in SoundVolume.awtrixRange {
            #expect(SoundVolume.toAWTRIX(try SoundVolume.fromAWTRIX(level)) == level)
        }
        #expect(SoundVolume.toAWTRIX(50) == 15)
        #expect(SoundVolume.toAWTRIX(101) == 30)
    }

    @Test func b3_lametricIsNooksOwnScale() throws {
        for level in [0, 1, 37, 100] { #expect(try SoundVolume.fromLaMetric(level) == level) }
        #expect(SoundVolume.toLaMetric(-4) == 0)
    }

    @Test func b3_outOfRangeLevelsAreRefusedNamingTheRange() throws {
        #expect(throws: SoundError("AWTRIX volume 31 is outside 0–30")) { try SoundVolume.fromAWTRIX(31) }
        #expect(throws: SoundError("AWTRIX volume -1 is outside 0–30")) { try SoundVolume.fromAWTRIX(-1) }
        #expect(throws: SoundError("LaMetric volume 101 is outside 0–100")) { try SoundVolume.fromLaMetric(101) }
        #expect(throws: SoundError("volume 200 is outside 0–100")) { try SoundVolume.nook(200) }
        #expect(try SoundVolume.nook(100) == 100)
    }
}
