import NookActivities
@testable import NookDisplay
import NookTestSupport
import NookTestTraits
import Testing

// Whole bar-panel frames turned, filled and compared pixel by pixel: seconds of a debug
// build's CPU, on the computing tests' thread rather than the pool every test shares.
@Suite("D3 mock display, R6 rotation", .cpuBound)
struct DisplayTests {
    /// A frame whose every pixel names its own coordinates.
    func numbered(width: Int, height: Int) -> Frame {
        Frame(width: width, height: height, pixels: (0..<width * height).map { UInt32($0) })
    }

    /// A bar panel's frame natively; emulated (qemu-user), the small SPI panel's, still many
    /// tiles of the turn: the whole bar panel's turns took most of the aarch64 suite's longest
    /// slice (minutes of one core), and the amd64 passes turn it.
    static let panel: (Int, Int) = QEMUUser.running ? (320, 170) : (1280, 400)

    @Test(arguments: [(37, 21), panel, (17, 16), (1, 5)])
    func r6_quarterTurnsMovePixelsClockwiseAndFourMakeAWhole(width: Int, height: Int) {
        let frame = numbered(width: width, height: height)
        let quarter = frame.rotated(.quarter)
        #expect(quarter.size == PixelSize(width: height, height: width))
        // Clockwise: the top-left pixel goes to the top-right corner.
        #expect(quarter[height - 1, 0] == frame[0, 0])
        #expect(quarter[0, width - 1] == frame[width - 1, height - 1])
        let three = frame.rotated(.threeQuarters)
        #expect(three[0, width - 1] == frame[0, 0])
        #expect(frame.rotated(.half)[width - 1, height - 1] == frame[0, 0])
        #expect(quarter.rotated(.threeQuarters) == frame)
        #expect(quarter.rotated(.quarter).rotated(.quarter).rotated(.quarter) == frame)
        #expect(frame.rotated(.half).rotated(.half) == frame)
        #expect(frame.rotated(.none) == frame)
    }

    static let fillSizes: [(Int, Int)] = {
        let sizes = [(1, 1), (1023, 1), (32, 32), (1025, 1), (33, 62), panel]
        return QEMUUser.running ? sizes : sizes + [(1920, 480)]
    }()

    @Test(arguments: fillSizes)
    func d3_aFillSetsEveryPixelWhateverTheSizeAgainstItsBlock(width: Int, height: Int) {
        var frame = numbered(width: width, height: height)
        frame.fill(0xFF12_3456)
        #expect(frame.pixels.allSatisfy { $0 == 0xFF12_3456 })
        #expect(frame.pixels.count == width * height)
        frame.fill(0xFF00_0000)
        #expect(frame.pixels.allSatisfy { $0 == 0xFF00_0000 })
    }

    @Test func r6_rotationTilesAvoidRowsThatShareOneCacheSet() {
        // Turned rows 1,600 and 1,920 bytes apart spread over the L1's sets and keep
        // 128-row tiles; rows 4,096 bytes apart all land in one set, so a tile writes to few.
        #expect(Frame.rotationTileRows(rowBytes: 400 * 4) == 128)
        #expect(Frame.rotationTileRows(rowBytes: 480 * 4) == 128)
        #expect(Frame.rotationTileRows(rowBytes: 1024 * 4) == 8)
        #expect(Frame.rotationTileRows(rowBytes: 512 * 4) == 8)
        #expect(Frame.rotationTileRows(rowBytes: 768 * 4) == 16)
        // Whatever the tile, the turn is exact.
        let tall = numbered(width: 33, height: 1024)
        let turned = tall.rotated(.quarter)
        #expect(turned[1023, 0] == tall[0, 0] && turned[0, 32] == tall[32, 1023])
        #expect(turned.rotated(.threeQuarters) == tall)
    }

    @Test func r6_rotationsComposeAndParse() {
        #expect(Rotation(degrees: 450) == .quarter)
        #expect(Rotation(degrees: -90) == .threeQuarters)
        #expect(Rotation.quarter.then(.threeQuarters) == Rotation.none)
        #expect(Rotation.quarter.inverse == .threeQuarters)
        #expect(PixelSize(parsing: "400x1280")?.rotated(.quarter) == PixelSize(width: 1280, height: 400))
        #expect(PixelSize(parsing: "0x10") == nil && PixelSize(parsing: "abc") == nil)
    }

    @Test func d3_mockRecordsEveryFrameWithItsTimePacedToTheRefresh() async throws {
        let clock = InstantClock()
        let display = MockDisplay(size: PixelSize(width: 8, height: 4), refreshHz: 50, clock: clock)
        for shade in 0..<5 {
            try await display.present(Frame(width: 8, height: 4, fill: UInt32(shade)))
        }
        #expect(display.frameCount == 5)
        #expect(display.frames.map(\.index) == [0, 1, 2, 3, 4])
        #expect(display.frames.map(\.at.sinceOrigin) == (0..<5).map { .milliseconds(20 * $0) }, "one frame per 20 ms vblank")
        #expect(display.lastFrame?.frame.pixels.first == 4)
    }

    @Test func d3_mockKeepsABoundedHistoryButCountsEverything() async throws {
        let display = MockDisplay(size: PixelSize(width: 2, height: 2), clock: InstantClock(), keepFrames: 3)
        for _ in 0..<10 { try await display.present(Frame(width: 2, height: 2)) }
        #expect(display.frameCount == 10)
        #expect(display.frames.map(\.index) == [7, 8, 9])

        let countingOnly = MockDisplay(size: PixelSize(width: 2, height: 2), clock: InstantClock(), keepFrames: 0)
        for _ in 0..<4 { try await countingOnly.present(Frame(width: 2, height: 2)) }
        #expect(countingOnly.frameCount == 4 && countingOnly.frames.isEmpty && countingOnly.lastFrame == nil)
    }

    @Test func d3_mockRejectsAFrameOfTheWrongSizeNamingBoth() async {
        let display = MockDisplay(size: PixelSize(width: 4, height: 4), clock: InstantClock())
        do {
            try await display.present(Frame(width: 5, height: 4))
            Issue.record("a 5x4 frame on a 4x4 display must fail")
        } catch {
            #expect(error.description.contains("5x4") && error.description.contains("4x4"))
        }
        #expect(display.frameCount == 0)
    }

    @Test func d3_mockHandsEachFrameToItsSinkAndTracksBlankAndRestore() async throws {
        let seen = Counter()
        let display = MockDisplay(size: PixelSize(width: 2, height: 2), clock: InstantClock()) { _ in seen.increment() }
        try await display.present(Frame(width: 2, height: 2))
        try await display.present(Frame(width: 2, height: 2))
        #expect(seen.value == 2)
        try await display.setBlanked(true)
        #expect(display.isBlanked)
        display.restore()
        #expect(display.wasRestored)
    }
}

final class Counter: Sendable {
    private let count = Locked(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
