@testable import NookFramebuffer
import Testing

@Suite("D2 fbdev fallback")
struct FramebufferTests {
    @Test(arguments: [
        (UInt32(0xFFFF_FFFF), UInt16(0xFFFF)), (0xFF00_0000, 0x0000), (0xFFFF_0000, 0xF800),
        (0xFF00_FF00, 0x07E0), (0xFF00_00FF, 0x001F), (0xFF30_D158, 0x368B),
    ])
    func d2_xrgb8888BecomesRGB565ByTheTopBitsOfEachChannel(pixel: UInt32, expected: UInt16) {
        #expect(FramebufferDisplay.rgb565(pixel) == expected)
    }

    /// `fb_var_screeninfo` and `fb_fix_screeninfo` bytes as the kernel fills them.
    func info(width: Int, height: Int, bpp: Int, red: (Int, Int), green: (Int, Int), blue: (Int, Int), line: Int) -> ScreenInfo {
        var variable = [UInt8](repeating: 0, count: 160), fixed = [UInt8](repeating: 0, count: 80)
        func put(_ value: Int, _ offset: Int, into bytes: inout [UInt8]) {
            withUnsafeBytes(of: UInt32(value).littleEndian) { for (index, byte) in $0.enumerated() { bytes[offset + index] = byte } }
        }
        for (value, offset) in [(width, 0), (height, 4), (width, 8), (height, 12), (bpp, 24), (red.0, 32), (red.1, 36),
                                (green.0, 44), (green.1, 48), (blue.0, 56), (blue.1, 60)] { put(value, offset, into: &variable) }
        put(line, 48, into: &fixed)
        put(line * height, 24, into: &fixed)
        return ScreenInfo(variable: variable, fixed: fixed)
    }

    @Test func d2_theScreenInfoNamesSizePitchAndFormat() {
        let xrgb = info(width: 1280, height: 400, bpp: 32, red: (16, 8), green: (8, 8), blue: (0, 8), line: 5120)
        #expect(xrgb.width == 1280 && xrgb.height == 400 && xrgb.lineLength == 5120)
        #expect(xrgb.pixelFormat == .xrgb8888)
        let spi = info(width: 320, height: 170, bpp: 16, red: (11, 5), green: (5, 6), blue: (0, 5), line: 640)
        #expect(spi.pixelFormat == .rgb565)
        let bgr = info(width: 320, height: 170, bpp: 16, red: (0, 5), green: (5, 6), blue: (11, 5), line: 640)
        #expect(bgr.pixelFormat == nil, "BGR565 is refused with a clear error rather than drawn in wrong colours")
        #expect(info(width: 8, height: 8, bpp: 24, red: (16, 8), green: (8, 8), blue: (0, 8), line: 24).pixelFormat == nil)
    }

    @Test func d2_aMissingFramebufferIsAClearError() {
        do {
            _ = try FramebufferDisplay(path: "/dev/fb-nonexistent", clock: StandingClock())
            Issue.record("must fail")
        } catch {
            #expect(error.description.contains("/dev/fb-nonexistent") && error.description.contains("(2)"))
        }
    }
}

import NookActivities
struct StandingClock: NookClock {
    var now: NookInstant { .origin }
    func sleep(until deadline: NookInstant) async throws {}
}
