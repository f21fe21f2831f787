import Foundation
import NookActivities
import NookDisplay
@testable import NookPixel
import NookRender
import NookTestSupport
import NookTestTraits
import Testing

/// Icon files on LED matrices (M3, L3): a PNG or GIF is drawn in the icon's 8x8 cell, fitted
/// when it is another size; an animated GIF moves on the injected clock with its frame delays,
/// redrawn when its frame changes and never sooner.
@Suite("M3 icon files on LED matrices")
struct PixelIconFileTests {
    static let renderer = PixelRenderer(size: PixelSize(width: 32, height: 8))
    static let off: UInt32 = 0xFF00_0000

    /// The 8x8 cell at the left of a frame.
    static func cell(_ frame: Frame) -> [UInt32] { (0..<64).map { frame[$0 % 8, $0 / 8] } }

    static func drawn(_ image: PixelIconImage?, at elapsed: Duration = .zero, renderer: PixelRenderer = renderer) -> Frame {
        var frame = Frame(width: renderer.size.width, height: renderer.size.height)
        renderer.render(NookActivity(title: "i", systemImage: "/icons/x.gif"), elapsed: elapsed, icon: image, into: &frame)
        return frame
    }

    /// Writes `bytes` to a file of its own and reads it as nookd does.
    static func picture(_ bytes: [UInt8]) throws -> PixelIconImage {
        let path = FileManager.default.temporaryDirectory.path + "/nook-pixel-icon-\(UInt64.random(in: 0...UInt64.max)).gif"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let picture = try IconFile.loadPicture(path: path)
        return PixelIconImage(width: picture.frames[0].width, height: picture.frames[0].height,
                              frames: picture.frames.map(\.pixels), delays: picture.delays)
    }

    @Test func m3_l3_anEightByEightIconFileIsDrawnPixelForPixelItsClearPixelsDark() throws {
        // A diagonal of red, green and blue on clear.
        let indices: [UInt8] = (0..<64).map { (index: Int) -> UInt8 in index % 8 == index / 8 ? UInt8(1 + index % 3) : 0 }
        let image = try Self.picture(TestGIF.encode(width: 8, height: 8, palette: [0, 0xFF0000, 0x00FF00, 0x0000FF],
                                                    frames: [.init(indices: indices, width: 8, height: 8, transparent: 0)]))
        let colours: [UInt32] = [Self.off, 0xFFFF_0000, 0xFF00_FF00, 0xFF00_00FF]
        let expected = indices.map { colours[Int($0)] }
        #expect(Self.cell(Self.drawn(image)) == expected)
        // Without the picture (the file could not be read) the cell is the ringed dot.
        var dot = Frame(width: 32, height: 8)
        PixelIcons.draw(PixelIcons.generic, at: 0, 0, color: PixelPalette.color(for: .accent).pixel, into: &dot)
        #expect(Self.cell(Self.drawn(nil)) == Self.cell(dot))
    }

    @Test func m3_l3_aLargerIconIsFittedIntoTheCellEachLEDTheAverageOfWhatItCovers() throws {
        // 16x8: two pixels across and one down per LED of an 8x4 fit, centred in rows 2 to 5.
        // Each pair is one red and one clear pixel in the first column pair: half red, drawn
        // at half brightness; a fully clear pair leaves the LED dark.
        var indices = [UInt8](repeating: 2, count: 128)
        for row in 0..<8 { indices[row * 16] = 1; indices[row * 16 + 1] = 0 }
        for row in 0..<8 { indices[row * 16 + 14] = 0; indices[row * 16 + 15] = 0 }
        let image = try Self.picture(TestGIF.encode(width: 16, height: 8, palette: [0, 0xFF0000, 0x00FF00],
                                                    frames: [.init(indices: indices, width: 16, height: 8, transparent: 0)]))
        let cell = Self.cell(Self.drawn(image))
        for y in 0..<8 {
            for x in 0..<8 {
                let pixel = cell[y * 8 + x]
                switch (y, x) {
                case (2..<6, 0): #expect(pixel == 0xFF80_0000, "(\(x), \(y)) \(String(pixel, radix: 16))")
                case (2..<6, 7): #expect(pixel == Self.off, "(\(x), \(y))")
                case (2..<6, _): #expect(pixel == 0xFF00_FF00, "(\(x), \(y))")
                default: #expect(pixel == Self.off, "(\(x), \(y)) outside the fit")
                }
            }
        }
    }

    @Test func m3_l3_anAnimatedIconShowsEachFrameForItsDelayAndLoops() throws {
        // Red for 0.1 s, then green for 0.3 s.
        let image = try Self.picture(TestGIF.encode(width: 8, height: 8, palette: [0xFF0000, 0x00FF00], frames: [
            .init(indices: [UInt8](repeating: 0, count: 64), width: 8, height: 8, delayCentiseconds: 10),
            .init(indices: [UInt8](repeating: 1, count: 64), width: 8, height: 8, delayCentiseconds: 30),
        ]))
        let red = [UInt32](repeating: 0xFFFF_0000, count: 64), green = [UInt32](repeating: 0xFF00_FF00, count: 64)
        for (milliseconds, cell) in [(0, red), (99, red), (100, green), (399, green), (400, red), (500, green)] {
            #expect(Self.cell(Self.drawn(image, at: .milliseconds(milliseconds))) == cell, "at \(milliseconds) ms")
        }
        #expect(image.nextChange(after: .milliseconds(0)) == .milliseconds(100))
        #expect(image.nextChange(after: .milliseconds(100)) == .milliseconds(400))
        #expect(image.nextChange(after: .milliseconds(450)) == .milliseconds(500))
        // A narrow matrix scrolls the icon with the title: the same frame at the same time.
        let narrow = PixelRenderer(size: PixelSize(width: 8, height: 8))
        var scrolled = Frame(width: 8, height: 8)
        narrow.render(NookActivity(title: "i", systemImage: "/icons/x.gif"), elapsed: .milliseconds(150), scrolled: .zero, icon: image, into: &scrolled)
        #expect(Self.cell(scrolled) == green)
    }

    @Test func m3_l3_aLargeIconIsFittedIntoTheCellOnceWhenReadNotAtEveryFrame() {
        // 1024x1024 red over green: a marquee redraws 30 times a second, and each redraw would
        // average a million pixels down to 64 LEDs again; kept fitted, a frame is 64 colours.
        // (128x128 under qemu-user, where the million-pixel frames took most of a minute.)
        let side = QEMUUser.running ? 128 : 1024
        let frame = (0..<(side * side)).map { $0 < side * side / 2 ? UInt32(0xFFFF_0000) : 0xFF00_FF00 }
        let image = PixelIconImage(width: side, height: side, frames: [frame, frame], delays: [.milliseconds(100), .milliseconds(100)])
        #expect(image.keptPixels == 2 * 64)
        var drawn = Frame(width: 32, height: 8)
        image.draw(frame: 1, at: 0, 0, into: &drawn)
        #expect(Self.cell(drawn) == [UInt32](repeating: 0xFFFF_0000, count: 32) + [UInt32](repeating: 0xFF00_FF00, count: 32))
    }

    func event(_ activity: NookActivity, _ kind: NookActivityEvent.Kind, _ clock: ManualClock) -> NookActivityEvent {
        NookActivityEvent(activity: activity, kind: kind, at: clock.now, module: nil)
    }

    @Test func m3_l3_theScreenRedrawsAnAnimatedIconWhenItsFrameChangesAndAZeroDelayDoesNotSpin() async throws {
        // Zero delays, which browsers show for a tenth of a second each.
        let bytes = TestGIF.encode(width: 8, height: 8, palette: [0xFF0000, 0x00FF00], frames: [
            .init(indices: [UInt8](repeating: 0, count: 64), width: 8, height: 8, delayCentiseconds: 0),
            .init(indices: [UInt8](repeating: 1, count: 64), width: 8, height: 8, delayCentiseconds: 0),
        ])
        let image = try Self.picture(bytes)
        let still = try Self.picture(TestGIF.encode(width: 8, height: 8, palette: [0xFF0000, 0x00FF00],
                                                    frames: [.init(indices: [UInt8](repeating: 1, count: 64), width: 8, height: 8)]))
        let reads = Locked<[String]>([])
        let clock = ManualClock()
        let display = RecordingDisplay(32, 8)
        let screen = PixelScreen(display: display, clock: clock, renderer: Self.renderer, localTime: { (9, 41, 0) },
                                 iconLoader: { path in
                                     reads.withLock { $0.append(path) }
                                     return .success(path == "/icons/still.png" ? still : image)
                                 })
        await screen.showHome()
        let card = NookActivity(title: "i", systemImage: "/icons/x.gif")
        let start = clock.now
        await screen.handle(event(card, .animateIn, clock))
        let cells = { display.frames.withLock { $0.map(Self.cell) } }
        let red = [UInt32](repeating: 0xFFFF_0000, count: 64), green = [UInt32](repeating: 0xFF00_FF00, count: 64)
        #expect(cells().last == red)
        // One sleeper, until the frame changes: not a frame interval, not now.
        await clock.waitForSleepers()
        #expect(clock.deadlines == [start + .milliseconds(100)])
        let drawnBefore = display.frameCount
        clock.advance(by: .milliseconds(100))
        await clock.waitForSleepers()
        #expect(clock.deadlines == [start + .milliseconds(200)])
        #expect(display.frameCount == drawnBefore + 1 && cells().last == green)
        clock.advance(by: .milliseconds(100))
        await clock.waitForSleepers()
        #expect(display.frameCount == drawnBefore + 2 && cells().last == red)
        // Presented (its dwell starts) and updated in place with the same icon: read once.
        await screen.handle(event(card, .presented, clock))
        #expect(reads.withLock { $0 } == ["/icons/x.gif"])

        // A still icon file with a title that fits: nothing moves, nothing sleeps.
        var other = card
        other.systemImage = "/icons/still.png"
        await screen.handle(event(other, .updated(previous: card), clock))
        #expect(cells().last == green)
        for _ in 0..<50 { await Task.yield() }
        #expect(clock.sleeperCount == 0, "\(clock.deadlines)")
        #expect(reads.withLock { $0 } == ["/icons/x.gif", "/icons/still.png"])
    }
}
