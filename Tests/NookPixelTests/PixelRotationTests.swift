import NookActivities
import NookDisplay
import NookPixel
import NookTestSupport
import NookTestTraits
import Testing

/// R6 on LED matrices: `display.rotation` turns the pixel frame before it reaches the LEDs.
@Suite("R6 L3 rotation on LED matrices", .cpuBound)
struct PixelRotationTests {
    /// Where logical pixel (x, y) of a `width`x`height` drawing lands on the LEDs after a
    /// clockwise turn, worked out by hand for each quarter (not through `Frame.rotate`).
    static func physical(_ x: Int, _ y: Int, width: Int, height: Int, _ rotation: Rotation) -> (Int, Int) {
        switch rotation {
        case .none: (x, y)
        case .quarter: (height - 1 - y, x)
        case .half: (width - 1 - x, height - 1 - y)
        case .threeQuarters: (y, width - 1 - x)
        }
    }

    @Test(arguments: Rotation.allCases)
    func r6_l3_aMatrixShowsTheCardTurnedByTheConfiguredRotation(_ rotation: Rotation) async throws {
        // A 9x6 matrix: not square, so a quarter turn draws 6x9 and every pixel has one place.
        let display = RecordingDisplay(9, 6)
        let logical = PixelSize(width: 9, height: 6).rotated(rotation.inverse)
        let renderer = PixelRenderer(size: logical)
        let clock = ManualClock()
        let screen = PixelScreen(display: display, clock: clock, renderer: renderer, rotation: rotation, localTime: { (9, 41, 0) })
        // Progress (the bottom row) and an icon: nothing symmetric for a wrong turn to hide behind.
        let card = NookActivity(title: "Up", systemImage: "bell", tint: .named(.orange), progress: 0.3)
        await screen.handle(NookActivityEvent(activity: card, kind: .animateIn, at: clock.now, module: nil))
        await screen.handle(NookActivityEvent(activity: card, kind: .presented, at: clock.now, module: nil))
        var drawn = Frame(width: logical.width, height: logical.height)
        renderer.render(card, elapsed: .zero, into: &drawn)
        #expect(drawn.pixels.contains { $0 & 0xFF_FFFF != 0 } && drawn.rotated(.half) != drawn,
                "the drawing is lit and not the same upside down, so a wrong turn shows")
        let sent = try #require(display.frames.withLock { $0.last })
        #expect(sent.size == PixelSize(width: 9, height: 6))
        for y in 0..<logical.height {
            for x in 0..<logical.width {
                let (px, py) = Self.physical(x, y, width: logical.width, height: logical.height, rotation)
                #expect(sent[px, py] == drawn[x, y], "logical (\(x), \(y)) at \(rotation)")
            }
        }
        #expect(await screen.lastPresentedFrame == sent, "snapshots show the LEDs as wired")
    }
}
