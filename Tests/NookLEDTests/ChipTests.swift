import NookActivities
import NookDisplay
import NookLED
import NookTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("L2 L5 I2C LED chips, SPI strips and the LED display")
struct ChipTests {
    func randomFrame(_ width: Int, _ height: Int, seed: UInt64) -> Frame {
        var random = SplitMix(seed: seed)
        return Frame(width: width, height: height, pixels: (0..<width * height).map { _ in 0xFF00_0000 | UInt32(truncatingIfNeeded: random.next()) & 0xFF_FFFF })
    }

    @Test func l2_is31fl3731PageWritesDecodeToTheFrameAndFlipFrames() throws {
        let chip = IS31FL3731Model()
        let driver = try IS31FL3731(bus: chip, board: .scrollPHATHD, safety: LEDSafety(gamma: 1, brightness: 1))
        #expect(!chip.isShutDown && chip.shownFrame == 0)
        #expect((0..<144).allSatisfy { chip.enabled(frame: 0, led: $0) && chip.enabled(frame: 1, led: $0) })
        for seed in 1...3 {
            let frame = randomFrame(17, 7, seed: UInt64(seed))
            let before = chip.shownFrame
            try driver.show(frame)
            #expect(chip.shownFrame != before, "drawn in the hidden frame, then shown")
            let expected = (0..<7).map { y in (0..<17).map { x -> UInt8 in
                let value = frame[x, y]
                return UInt8(max(value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF))
            } }
            #expect(chip.scrollPHATHD() == expected)
        }
        try driver.clear()
        #expect(chip.isShutDown)
        #expect((0..<144).allSatisfy { chip.pwm(frame: 0, led: $0) == 0 && chip.pwm(frame: 1, led: $0) == 0 })
        // Unblanking, or a chip that lost power meanwhile (every register back to zero): the
        // next frame sets the chip up again and shows.
        chip.registers.withLock { $0 = IS31FL3731Model.Registers() }
        let again = randomFrame(17, 7, seed: 9)
        try driver.show(again)
        #expect(!chip.isShutDown && (0..<144).allSatisfy { chip.enabled(frame: chip.shownFrame, led: $0) })
        #expect(chip.scrollPHATHD() == (0..<7).map { y in (0..<17).map { x -> UInt8 in
            let value = again[x, y]
            return UInt8(max(value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF))
        } })
    }

    @Test func l2_scrollPHATHDMappingUsesEveryLEDOnce() {
        let board = IS31FL3731.Board.scrollPHATHD
        let indices = (0..<7).flatMap { y in (0..<17).map { board.ledIndex(x: $0, y: y) } }
        #expect(Set(indices).count == 119 && indices.allSatisfy { (0..<144).contains($0) })
    }

    @Test func l2_ht16k33RAMDecodesToTheFrameWithDimmingFromTheBrightnessLimit() throws {
        let chip = HT16K33Model()
        let driver = try HT16K33(bus: chip, board: .matrix8x8, safety: LEDSafety(brightness: 0.5))
        #expect(chip.state.withLock { $0.oscillator && $0.displayOn && $0.dimming == 7 })
        var frame = Frame(width: 8, height: 8)
        let art = ["#......#", ".#....#.", "..#..#..", "...##...", "...##...", "..#..#..", ".#....#.", "########"]
        for (y, line) in art.enumerated() { for (x, c) in line.enumerated() where c == "#" { frame[x, y] = 0xFF00_C000 } }
        frame[0, 1] = 0xFF00_4000  // below half: off on an on/off LED
        try driver.show(frame)
        #expect(chip.matrix8x8() == art)
        try driver.clear()
        #expect(chip.state.withLock { $0.ram.allSatisfy { $0 == 0 } && !$0.displayOn && !$0.oscillator })
        try driver.show(frame)
        #expect(chip.state.withLock { $0.oscillator && $0.displayOn } && chip.matrix8x8() == art, "a frame after the clear wakes the chip")
    }

    @Test func l1_spiStripSendsEachFrameAsOneTransferAtItsClock() throws {
        let spi = RecordingSPI()
        let strip = try SPIStrip(chip: .ws2812, layout: try LEDLayout(width: 8, height: 8, serpentine: true), safety: LEDSafety(gamma: 1, brightness: 1), transport: spi)
        let frame = randomFrame(8, 8, seed: 7)
        try strip.show(frame)
        let sent = try #require(spi.transfers.withLock { $0.last })
        #expect(sent.speedHz == 3_200_000)
        let values = try decodeWS2812(sent.bytes, ledBytes: 192).values
        let chain = walk(width: 8, height: 8, panel: (8, 8), serpentine: true, origin: .topLeft, order: .rows)
        for (led, pixel) in chain.enumerated() {
            #expect(RGB(red: values[led * 3 + 1], green: values[led * 3], blue: values[led * 3 + 2]).pixel == frame[pixel.0, pixel.1])
        }
        try strip.clear()
        #expect(try decodeWS2812(spi.transfers.withLock { $0.last!.bytes }, ledBytes: 192).values.allSatisfy { $0 == 0 })
        let apa = try SPIStrip(chip: .apa102, layout: try LEDLayout.strip(60), safety: LEDSafety(), transport: spi, apa102SpeedHz: 4_000_000)
        try apa.show(Frame(width: 60, height: 1, fill: 0xFFFF_FFFF))
        #expect(spi.transfers.withLock { $0.last!.speedHz } == 4_000_000)
        #expect(throws: LEDError.self) { try SPIStrip(chip: .apa102, layout: try LEDLayout.strip(4), order: .grbw, safety: LEDSafety(), transport: spi) }
    }

    @Test func l5_blankingClearsTheLEDsAndUnblankingShowsTheFrameAgain() async throws {
        let spi = RecordingSPI()
        let display = LEDDisplay(driver: try SPIStrip(chip: .ws2812, layout: try LEDLayout.strip(4), safety: LEDSafety(gamma: 1, brightness: 1), transport: spi), clock: ManualClock())
        try await display.present(Frame(width: 4, height: 1, fill: 0xFF10_2030))
        try await display.setBlanked(true)
        #expect(try decodeWS2812(spi.transfers.withLock { $0.last!.bytes }, ledBytes: 12).values.allSatisfy { $0 == 0 })
        try await display.setBlanked(false)
        #expect(try decodeWS2812(spi.transfers.withLock { $0.last!.bytes }, ledBytes: 12).values == [0x20, 0x10, 0x30, 0x20, 0x10, 0x30, 0x20, 0x10, 0x30, 0x20, 0x10, 0x30])
    }

    @Test func l5_ledDisplayClearsOnRestoreAndReportsAGoneBusThenItsReturn() async throws {
        let clock = ManualClock()
        let spi = RecordingSPI()
        let display = LEDDisplay(driver: try SPIStrip(chip: .ws2812, layout: try LEDLayout.strip(10), safety: LEDSafety(gamma: 1, brightness: 1), transport: spi), clock: clock)
        var changes = display.connectionChanges().makeAsyncIterator()
        try await display.present(Frame(width: 10, height: 1, fill: 0xFFFF_FFFF))
        #expect(display.presentedCount == 1)
        spi.failing.withLock { $0 = true }
        clock.advance(by: .seconds(1))
        await #expect(throws: DisplayError.self) { try await display.present(Frame(width: 10, height: 1, fill: 0xFFFF_FFFF)) }
        #expect(await changes.next() == false)
        spi.failing.withLock { $0 = false }
        await clock.waitForSleepers()
        clock.advance(by: .seconds(1))
        #expect(await changes.next() == true)
        display.restore()
        let last = try decodeWS2812(spi.transfers.withLock { $0.last!.bytes }, ledBytes: 30)
        #expect(last.values.allSatisfy { $0 == 0 }, "every LED dark after restore")
        let sentAtRestore = spi.transfers.withLock { $0.count }
        clock.advance(by: .seconds(1))
        try await display.present(Frame(width: 10, height: 1, fill: 0xFFFF_FFFF))
        try await display.setBlanked(false)
        #expect(spi.transfers.withLock { $0.count } == sentAtRestore, "a late animation frame does not light the LEDs after the stop")
    }

    @Test func l1_spidevTransferIsOneSpiIocTransferWithItsSpeed() throws {
        // spidev's ioctls, decoded from <linux/spi/spidev.h>: the structure's bytes are read as
        // the kernel reads them (tx_buf at 0, len at 16, speed_hz at 20, bits_per_word at 26).
        struct Seen: Sendable { var requests: [UInt] = []; var payload: [UInt8] = []; var speed: UInt32 = 0; var bits: UInt8 = 0 }
        let seen = Locked(Seen())
        let path = "/tmp/nook-spidev-\(getpid())"
        let created = open(path, O_CREAT | O_RDWR, 0o600)
        close(created)
        defer { unlink(path) }
        let device = try SPIDevice(path: path, control: { _, request, argument in
            seen.withLock { seen in
                seen.requests.append(request)
                if request == 0x4020_6B00 {
                    let raw = UnsafeRawPointer(argument)
                    let buffer = UnsafePointer<UInt8>(bitPattern: UInt(raw.load(fromByteOffset: 0, as: UInt64.self)))!
                    let length = Int(raw.load(fromByteOffset: 16, as: UInt32.self))
                    seen.payload = Array(UnsafeBufferPointer(start: buffer, count: length))
                    seen.speed = raw.load(fromByteOffset: 20, as: UInt32.self)
                    seen.bits = raw.load(fromByteOffset: 26, as: UInt8.self)
                }
            }
            return 0
        }, bufsizPath: "/nonexistent")
        try device.transfer([1, 2, 3, 0xFF], speedHz: 3_200_000)
        let result = seen.withLock { $0 }
        #expect(result.requests == [0x4001_6B01, 0x4001_6B03, 0x4020_6B00], "mode, bits per word, then one message")
        #expect(result.payload == [1, 2, 3, 0xFF] && result.speed == 3_200_000 && result.bits == 8)
    }

    @Test func l1_aFrameLargerThanSpidevsBufferIsRefusedWithTheFix() throws {
        let path = "/tmp/nook-spidev-big-\(getpid())", bufsiz = "/tmp/nook-bufsiz-\(getpid())"
        close(open(path, O_CREAT | O_RDWR, 0o600))
        let file = fopen(bufsiz, "w")!
        fputs("4096\n", file)
        fclose(file)
        defer { unlink(path); unlink(bufsiz) }
        let device = try SPIDevice(path: path, control: { _, _, _ in 0 }, bufsizPath: bufsiz)
        #expect(device.maximumTransfer == 4096)
        #expect(throws: LEDError("a frame of 12408 bytes exceeds spidev's buffer of 4096; add spidev.bufsiz=65536 to the kernel command line (cmdline.txt)")) {
            try device.transfer([UInt8](repeating: 0, count: 12408), speedHz: 3_200_000)
        }
    }
}
