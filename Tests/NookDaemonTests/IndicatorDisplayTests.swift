import NookActivities
@testable import NookDaemon
import NookDisplay
import NookPixel
import NookProtocol
import NookRender
import NookTestSupport
import Testing

/// M1: nookd's indicator lights on the injected clock: drawn over home content and cards on an
/// LED matrix and a panel, kept while a card comes and goes, a blink redrawn at its edges and
/// no faster than the shortest step, and no timer once nothing blinks.
@Suite("M1 nookd's indicator lights")
struct IndicatorDisplayTests {
    struct LED {
        let clock = ManualClock()
        let mock: MockDisplay
        let indicators: IndicatorDisplay
        let screen: PixelScreen

        init() {
            // The mock paces its presents on a clock of its own: on the manual one, a second
            // present at the same instant would wait for a vertical blank nobody advances to.
            mock = MockDisplay(size: PixelSize(width: 32, height: 8), refreshHz: 1000, clock: NookSystemClock())
            indicators = IndicatorDisplay(mock, kind: .matrix, clock: clock)
            screen = PixelScreen(display: indicators, clock: clock, renderer: PixelRenderer(size: PixelSize(width: 32, height: 8)),
                                 home: .blank, localTime: { (12, 0, 0) })
            indicators.redraw { [screen] in await screen.redisplay() }
        }

        func pixel(_ x: Int, _ y: Int) -> UInt32? { mock.lastFrame.map { $0.frame.pixels[y * 32 + x] & 0xFF_FFFF } }
    }

    @Test func m1_anIndicatorIsDrawnOverHomeAndCardsAndOutlivesACard() async throws {
        let led = LED()
        await led.screen.showHome()
        let answer = await led.indicators.set(NookIndicator(number: 1, color: 0xFF0000))
        #expect(answer == IndicatorAnswer(number: 1, color: "#ff0000", blinkMs: 0, fadeMs: 0, warnings: []))
        #expect(led.pixel(31, 0) == 0xFF0000 && led.pixel(30, 0) == 0xFF0000 && led.pixel(31, 1) == 0xFF0000, "drawn over home at once")
        // A card full of lit pixels comes: the light is over it; it goes: the light stays.
        let card = NookActivity(title: "WWWWWWWWWW", dwell: .seconds(5))
        await led.screen.handle(NookActivityEvent(activity: card, kind: .animateIn, at: led.clock.now, module: nil))
        #expect(led.pixel(31, 0) == 0xFF0000)
        // Lit while the card is on: drawn at once over it, though the card's frame is unchanged.
        _ = await led.indicators.set(NookIndicator(number: 2, color: 0x0000FF))
        #expect(led.pixel(31, 3) == 0x0000FF && led.pixel(31, 4) == 0x0000FF)
        _ = await led.indicators.set(.off(2))
        #expect(led.pixel(31, 3) != 0x0000FF)
        await led.screen.handle(NookActivityEvent(activity: card, kind: .hidden(.completed), at: led.clock.now, module: nil))
        #expect(led.pixel(31, 0) == 0xFF0000 && led.indicators.lights.map(\.color) == ["#ff0000", nil, nil])
        // Black turns it off, and the glass is redrawn without it.
        let off = await led.indicators.set(.off(1))
        #expect(off.color == nil && led.pixel(31, 0) == 0 && led.indicators.lights.allSatisfy { $0.color == nil })
    }

    @Test func m1_aBlinkRedrawsTheGlassAtItsEdgesOnTheInjectedClockAndStopsWhenTurnedOff() async throws {
        let led = LED()
        await led.screen.showHome()
        let start = led.clock.now
        _ = await led.indicators.set(NookIndicator(number: 3, color: 0x00FF00, blinkMs: 500))
        #expect(led.pixel(31, 7) == 0x00FF00)
        await led.clock.waitForSleepers(atLeast: 1)
        #expect(led.clock.deadlines == [start + .milliseconds(500)], "the next redraw is the blink's edge")
        let before = led.mock.frameCount
        led.clock.advance(to: start + .milliseconds(500))
        await led.clock.waitForSleepers(atLeast: 1)
        #expect(led.mock.frameCount == before + 1 && led.pixel(31, 7) == 0, "off for the second half")
        #expect(led.clock.deadlines == [start + .milliseconds(1000)])
        led.clock.advance(to: start + .milliseconds(1000))
        await led.clock.waitForSleepers(atLeast: 1)
        #expect(led.pixel(31, 7) == 0x00FF00)
        // While the display is off (idle blanking, nobody there) a blink redraws nothing and
        // wakes nothing; back on, it goes on from its next edge.
        try await led.indicators.setBlanked(true)
        let dark = led.mock.frameCount
        #expect(led.clock.sleeperCount == 0, "no timer while the display is off: \(led.clock.deadlines)")
        led.clock.advance(to: start + .milliseconds(1500))
        #expect(led.mock.frameCount == dark)
        try await led.indicators.setBlanked(false)
        await led.clock.waitForSleepers(atLeast: 1)
        #expect(led.clock.deadlines == [start + .milliseconds(2000)])
        // Off: no timer is left, nothing redraws the glass for it.
        _ = await led.indicators.set(.off(3))
        #expect(led.clock.sleeperCount == 0)
    }

    @Test func m1_aBlinkFasterThanTheShortestStepIsDrawnAtItAndSaid() async throws {
        let led = LED()
        await led.screen.showHome()
        let start = led.clock.now
        let answer = await led.indicators.set(NookIndicator(number: 2, color: 0x0000FF, blinkMs: 10, fadeMs: 800))
        #expect(answer.blinkMs == 100 && answer.fadeMs == 0, "\(answer)")
        #expect(answer.warnings.first?.hasPrefix("blink: 10 ms is drawn as 100 ms") == true, "\(answer.warnings)")
        #expect(answer.warnings.count == 2 && answer.warnings.last?.hasPrefix("fade: not drawn while the indicator blinks") == true, "\(answer.warnings)")
        await led.clock.waitForSleepers(atLeast: 1)
        #expect(led.clock.deadlines == [start + .milliseconds(100)])
        // A blink or fade sent alone keeps the colour, as AWTRIX does; on a light that is off it is said.
        let kept = await led.indicators.set(NookIndicator(number: 2, color: nil, fadeMs: 2000))
        #expect(kept.color == "#0000ff" && kept.fadeMs == 2000 && kept.warnings.isEmpty, "\(kept)")
        // A fade of 2 s is redrawn in twenty steps: the next is 100 ms after it was set.
        await led.clock.waitForSleepers(atLeast: 1)
        #expect(Set(led.clock.deadlines) == [start + .milliseconds(100)])
        let dark = await led.indicators.set(NookIndicator(number: 1, color: nil, blinkMs: 500))
        #expect(dark.color == nil && dark.warnings == ["indicator1 is off: a blink or fade without a colour changes nothing until it is lit"])
        _ = await led.indicators.set(.off(2))
    }

    /// A fade of a few hundred milliseconds sampled every 100 ms is a steady half light (its
    /// steps all land where the sine crosses the middle), redrawn for nothing: it is drawn at the
    /// shortest fade the steps can show, and that is said, as a blink too short is.
    @Test func m1_aFadeTooShortForTheStepsIsDrawnAtTheShortestItCanShowAndSaid() async throws {
        let led = LED()
        await led.screen.showHome()
        let start = led.clock.now
        let answer = await led.indicators.set(NookIndicator(number: 1, color: 0xFF0000, fadeMs: 100))
        #expect(answer.fadeMs == 400, "\(answer)")
        #expect(answer.warnings.count == 1 && answer.warnings.first?.hasPrefix("fade: 100 ms is drawn as 400 ms") == true, "\(answer.warnings)")
        // Its four steps are four different colours: it is seen to rise and fall.
        var seen: Set<UInt32?> = [led.pixel(31, 0)]
        for step in 1...3 {
            await led.clock.waitForSleepers(atLeast: 1)
            led.clock.advance(to: start + .milliseconds(100 * step))
            await led.clock.waitForSleepers(atLeast: 1)
            seen.insert(led.pixel(31, 0))
        }
        #expect(seen.count == 3, "half, full, half, off: \(seen)")
        _ = await led.indicators.set(.off(1))
    }

    /// A light the display has no place for (a strip of two LEDs has no third from the end; on a
    /// 28x3 matrix indicator 2's pixels are indicator 1's and 3's) is kept and said, not dropped.
    @Test func m1_anIndicatorTheDisplayHasNoPlaceForIsSaid() async throws {
        let strip = MockDisplay(size: PixelSize(width: 2, height: 1), refreshHz: 1000, clock: NookSystemClock())
        let onStrip = IndicatorDisplay(strip, kind: .strip, clock: ManualClock())
        let third = await onStrip.set(NookIndicator(number: 3, color: 0xFF0000))
        #expect(third.color == "#ff0000" && third.warnings == ["indicator3: not drawn: this 2x1 display has no place for it"], "\(third)")
        let first = await onStrip.set(NookIndicator(number: 1, color: 0xFF0000))
        #expect(first.warnings.isEmpty, "\(first)")
        let shim = MockDisplay(size: PixelSize(width: 28, height: 3), refreshHz: 1000, clock: NookSystemClock())
        let onShim = IndicatorDisplay(shim, kind: .matrix, clock: ManualClock())
        let middle = await onShim.set(NookIndicator(number: 2, color: 0x00FF00))
        #expect(middle.warnings == ["indicator2: not drawn: this 28x3 display has no place for it"], "\(middle)")
    }

    /// A light set while a blink's redraw waits for the display (a vertical blank, a page flip)
    /// lets that redraw finish: it was cancelled there, so the frame was lost and nookd logged
    /// "display: present: cancelled while waiting for the vertical blank" as if the display failed.
    @Test func m1_aLightSetWhileABlinkRedrawsLetsThatRedrawFinish() async throws {
        let clock = ManualClock()
        let held = HeldDisplay(clock: clock)
        let indicators = IndicatorDisplay(held, kind: .matrix, clock: clock)
        let screen = PixelScreen(display: indicators, clock: clock, renderer: PixelRenderer(size: PixelSize(width: 32, height: 8)),
                                 home: .blank, localTime: { (12, 0, 0) })
        indicators.redraw { [screen] in await screen.redisplay() }
        await screen.showHome()
        let start = clock.now
        _ = await indicators.set(NookIndicator(number: 1, color: 0xFF0000, blinkMs: 500))
        await clock.waitForSleepers(atLeast: 1)
        // The blink's redraw at 500 ms waits for the display until 600 ms.
        held.holdUntil.withLock { $0 = start + .milliseconds(600) }
        clock.advance(to: start + .milliseconds(500))
        await clock.waitForSleepers(atLeast: 1)
        #expect(clock.deadlines == [start + .milliseconds(600)])
        _ = await indicators.set(NookIndicator(number: 2, color: 0x00FF00))
        clock.advance(to: start + .milliseconds(600))
        var outcomes = held.outcomes.makeAsyncIterator()
        let outcome = await outcomes.next()
        #expect(outcome == "presented")
        _ = await indicators.set(.off(1))
    }

    /// A display whose next present, once `holdUntil` is set, waits on the clock until then.
    final class HeldDisplay: DisplayBackend {
        let mode = DisplayMode(size: PixelSize(width: 32, height: 8), refreshHz: 1000, name: "held")
        let clock: ManualClock
        let holdUntil = Locked<NookInstant?>(nil)
        let (outcomes, outcome) = AsyncStream<String>.makeStream()

        init(clock: ManualClock) { self.clock = clock }

        func present(_ frame: Frame) async throws(DisplayError) {
            guard let until = holdUntil.withLock({ held in defer { held = nil }; return held }) else { return }
            do {
                try await clock.sleep(until: until)
            } catch {
                outcome.yield("cancelled")
                throw DisplayError(operation: "present", detail: "cancelled while held")
            }
            outcome.yield("presented")
        }

        func setBlanked(_ blanked: Bool) async throws(DisplayError) {}
        func restore() {}
    }

    @Test func m1_onAPanelTheMarkIsDrawnOverTheCardAndInTheSnapshotAndTheLiveView() async throws {
        let clock = ManualClock()
        let mock = MockDisplay(size: PixelSize(width: 400, height: 240), refreshHz: 1000, clock: NookSystemClock())
        let indicators = IndicatorDisplay(mock, kind: .panel, clock: clock)
        let glass = Recorded()
        let cards = NookScreen(display: indicators, clock: clock, settings: .init(home: .blank), observer: IndicatorFrames(glass, indicators))
        let screen = DaemonScreen(cards: cards, settings: .init(home: .blank), indicators: indicators)
        indicators.redraw { await screen.redisplay() }
        await screen.showHome()
        _ = await indicators.set(NookIndicator(number: 1, color: 0xFFFF00))
        // 1/40 of 240 is 6: the L's corner square at (388, 6).
        let presented = mock.lastFrame
        let last = try #require(presented?.frame)
        #expect(last.pixels[6 * 400 + 388] & 0xFF_FFFF == 0xFFFF00 && last.pixels[6 * 400 + 380] & 0xFF_FFFF != 0xFFFF00)
        let taken = await screen.lastPresentedFrame
        let snapshot = try #require(taken)
        #expect(snapshot.pixels[6 * 400 + 388] & 0xFF_FFFF == 0xFFFF00, "a snapshot shows the glass as seen")
        let handed = glass.frames.withLock { $0.last }
        let live = try #require(handed)
        #expect(live.pixels[6 * 400 + 388] & 0xFF_FFFF == 0xFFFF00, "the live view shows it too")
        _ = await indicators.set(.off(1))
        #expect((mock.lastFrame?.frame.pixels[6 * 400 + 388]).map { $0 & 0xFF_FFFF } != 0xFFFF00)
    }

    /// The frames a live view is handed.
    final class Recorded: PresentedFrames {
        let frames = Locked<[Frame]>([])
        func presented(_ frame: Frame) { frames.withLock { $0.append(frame) } }
        func showing(_ frame: Frame) { frames.withLock { $0.append(frame) } }
    }
}
