import NookActivities
import Testing

@Suite("Z2 brightness fades")
struct BrightnessFadeTests {
    @Test func z2_aFadePassesTenOrMoreDistinctLevelsOverItsWholeDuration() {
        let fade = NookBrightnessFade(from: 20, to: 255, over: .milliseconds(300))
        #expect(fade.steps.count >= 10)
        #expect(Set(fade.steps.map(\.level)).count == fade.steps.count, "each step a new level")
        #expect(fade.steps.last == .init(offset: .milliseconds(300), level: 255))
        #expect(fade.steps.first!.offset <= .milliseconds(30), "the first step comes early, not after a pause")
        #expect(zip(fade.steps, fade.steps.dropFirst()).allSatisfy { $0.level < $1.level && $0.offset < $1.offset })
        let down = NookBrightnessFade(from: 255, to: 0, over: .seconds(1))
        #expect(down.steps.count >= 10 && down.steps.last?.level == 0)
        #expect(zip(down.steps, down.steps.dropFirst()).allSatisfy { $0.level > $1.level })
    }

    @Test func z2_aSmallChangeTakesEveryLevelBetweenAndNoChangeNone() {
        #expect(NookBrightnessFade(from: 3, to: 7, over: .milliseconds(400)).steps.map(\.level) == [4, 5, 6, 7])
        #expect(NookBrightnessFade(from: 5, to: 5, over: .milliseconds(400)).steps.isEmpty)
    }
}
