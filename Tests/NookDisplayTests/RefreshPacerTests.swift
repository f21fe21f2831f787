import NookActivities
@testable import NookDisplay
import NookTestSupport
import Testing

/// R5 where no vblank paces the frames (DRM's dirty-fb path, fbdev without vsync, the mock):
/// the clock gives each frame a refresh slot, so a slide lasts as long as on a flipping panel.
@Suite("R5 refresh slots without a vblank")
struct RefreshPacerTests {
    let at = { (milliseconds: Int) in NookInstant.origin + .milliseconds(milliseconds) }

    @Test func r5_framesReadyAtOnceGetOneRefreshPeriodEach() {
        var pacer = RefreshPacer(refreshHz: 50)
        #expect(pacer.period == .milliseconds(20))
        // A slide whose frames cost nothing to present: without slots they would all go at t=0.
        let slots = (0..<5).map { _ in pacer.slot(readyAt: at(0)) }
        #expect(slots == [at(0), at(20), at(40), at(60), at(80)])
    }

    @Test(arguments: [0.0, -1, .nan, .infinity])
    func r5_aRateThatIsNoPositiveNumberPacesAtAbout60Hz(refreshHz: Double) {
        var pacer = RefreshPacer(refreshHz: refreshHz)
        #expect(pacer.period == .milliseconds(16))
        #expect(pacer.slot(readyAt: at(0)) == at(0) && pacer.slot(readyAt: at(0)) == at(16))
    }

    @Test func r5_aFrameReadyAfterItsSlotGoesAtOnceAndTheNextCountsFromIt() {
        var pacer = RefreshPacer(refreshHz: 50)
        #expect(pacer.slot(readyAt: at(0)) == at(0))
        #expect(pacer.slot(readyAt: at(5)) == at(20), "early: waits for its slot")
        #expect(pacer.slot(readyAt: at(75)) == at(75), "late (a slow frame): at once, not a period later")
        #expect(pacer.slot(readyAt: at(76)) == at(95))
    }

    @Test func r5_aMockDisplayPresentsOnePeriodApartOnTheClock() async throws {
        let clock = ManualClock()
        let display = MockDisplay(size: PixelSize(width: 4, height: 2), refreshHz: 60, clock: clock)
        let frame = Frame(width: 4, height: 2)
        let presents = Task {
            for _ in 0..<3 { try await display.present(frame) }
        }
        await clock.waitForSleepers(atLeast: 1)
        #expect(display.frameCount == 1, "the first frame takes the current slot")
        clock.advance(by: .milliseconds(16))
        #expect(display.frameCount == 1, "a period is 16.7 ms at 60 Hz: not yet")
        clock.advance(by: .milliseconds(1))
        await clock.waitForSleepers(atLeast: 1)
        #expect(display.frameCount == 2)
        clock.advance(by: .milliseconds(17))
        try await presents.value
        #expect(display.frameCount == 3)
    }
}
