import Foundation
import NookActivities
import NookDisplay
import NookPixel
import NookRender
import NookTestSupport
import NookTestTraits
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Golden images live beside this file; `NOOK_UPDATE_GOLDEN=1` rewrites them.
func goldenPath(_ name: String) -> String {
    let here = String(#filePath)
    return String(here[..<here.lastIndex(of: "/")!]) + "/Golden/" + name + ".png"
}

func checkGolden(_ leds: Frame, _ name: String) throws {
    let image = LEDMockImage.render(leds, cell: leds.height == 1 ? 12 : 16)
    let path = goldenPath(name)
    if getenv("NOOK_UPDATE_GOLDEN") != nil || access(path, F_OK) != 0 {
        try PNG.write(image, to: path)
        Issue.record("wrote the golden image \(path); check it and run again")
        return
    }
    let golden = try PNG.read(from: path)
    #expect(golden == image, "\(name) differs from its golden image")
}

/// The frame as text, one character per LED: `.` dark, `#` lit. Reads like the glass.
func picture(_ frame: Frame) -> [String] {
    (0..<frame.height).map { y in String((0..<frame.width).map { frame[$0, y] & 0xFF_FFFF == 0 ? "." : "#" }) }
}

@Suite("L3 L4 pixel renderer", .cpuBound)
struct PixelRendererTests {
    /// Pinned first: an in-process card screen or PNG draws text, and fontconfig reads its
    /// configuration once per process (the golden images depend on it).
    init() { TestFonts.pin() }

    func render(_ activity: NookActivity, _ width: Int, _ height: Int, at elapsed: Duration = .zero) -> Frame {
        var frame = Frame(width: width, height: height)
        PixelRenderer(size: PixelSize(width: width, height: height)).render(activity, elapsed: elapsed, into: &frame)
        return frame
    }

    @Test func l3_goldenCards() throws {
        let build = NookActivity(title: "Done", systemImage: "checkmark", tint: .named(.green), progress: 0.6)
        try checkGolden(render(build, 32, 8), "card-32x8-build")
        let door = NookActivity(title: "Doorbell", systemImage: "bell", tint: .named(.orange))
        try checkGolden(render(door, 17, 7), "card-17x7-doorbell")
        try checkGolden(render(door, 8, 8), "card-8x8-doorbell")
        try checkGolden(render(door, 8, 8, at: .seconds(1)), "card-8x8-doorbell-1s")
        try checkGolden(render(NookActivity(title: "Backup of /home finished", systemImage: "arrow.down.circle", tint: .named(.teal)), 32, 8, at: .seconds(1)), "card-32x8-marquee-1s")
        let backup = NookActivity(title: "Backup", tint: .named(.blue), progress: 0.4)
        try checkGolden(render(backup, 60, 1), "strip-60-backup")
        var home = Frame(width: 32, height: 8)
        PixelRenderer(size: PixelSize(width: 32, height: 8)).renderHome(.clock, hour: 9, minute: 41, into: &home)
        try checkGolden(home, "home-32x8-clock")
        var small = Frame(width: 17, height: 7)
        PixelRenderer(size: PixelSize(width: 17, height: 7)).renderHome(.clock, hour: 23, minute: 5, into: &small)
        try checkGolden(small, "home-17x7-clock")
    }

    @Test func l3_textIsCrispBitmapGlyphsInTheTint() {
        let frame = render(NookActivity(title: "Hi", systemImage: "heart", tint: .named(.red)), 32, 8)
        let colours = Set(frame.pixels)
        // Black, white text, red icon: no anti-aliasing greys anywhere.
        #expect(colours == [0xFF00_0000, 0xFFFF_FFFF, 0xFFFF_0000])
        #expect(frame[1, 0] == 0xFFFF_0000, "the heart icon, in the tint, at the left")
        // Row 2 of misc-fixed 5x7's 'H' (####.) then 'i' (.##..), right of the icon.
        #expect(picture(frame)[2].dropFirst(9).hasPrefix("####..##."), "\(picture(frame))")
    }

    @Test func l3_progressIsABarOnTheBottomRow() {
        let frame = render(NookActivity(title: "Up", systemImage: "arrow.up.circle", tint: .named(.green), progress: 0.5), 32, 8)
        let row = (9..<32).map { frame[$0, 7] }
        let lit = row.filter { $0 == 0xFF00_FF00 }.count
        #expect(lit == 12, "half of the 23 text columns, rounded: \(lit)")
        #expect(row.prefix(lit).allSatisfy { $0 == 0xFF00_FF00 } && row.dropFirst(lit).allSatisfy { $0 != 0xFF00_FF00 && $0 != 0xFF00_0000 })
    }

    @Test func l3_marqueeMakesOneFullPassAndComesBackToItsStart() throws {
        let renderer = PixelRenderer(size: PixelSize(width: 32, height: 8), scrollSpeed: 16)
        let long = NookActivity(title: "Backup of /home finished", tint: .named(.blue))
        let pass = try #require(renderer.marqueePass(for: long))
        // 24 characters of 5 columns, less the last spacing, plus the gap, at 16 columns a second.
        #expect(pass == .nookSeconds(Double(24 * 5 - 1 + PixelRenderer.marqueeGap) / 16))
        #expect(renderer.marqueePass(for: NookActivity(title: "Short")) == nil)
        var start = Frame(width: 32, height: 8), later = start, end = start
        renderer.render(long, elapsed: .zero, into: &start)
        renderer.render(long, elapsed: .milliseconds(500), into: &later)
        renderer.render(long, elapsed: pass, into: &end)
        #expect(start != later, "the title moved")
        #expect(start == end, "after one pass the title is back at its start")
        // Half a second at 16 columns a second is 8 columns: the text moved left by exactly that.
        #expect(picture(later)[2].dropFirst(9).prefix(15) == picture(start)[2].dropFirst(17).prefix(15))
    }

    @Test func l3_blockersPulseAndL4StripsBreathe() {
        let blocker = NookActivity(title: "Door", tint: .named(.red), presentation: .blocker(timeout: nil))
        let bright = render(blocker, 32, 8, at: .zero)
        let dim = render(blocker, 32, 8, at: PixelRenderer.pulsePeriod / 2)
        let brightFull = bright.pixels.contains(0xFFFF_0000), dimFull = dim.pixels.contains(0xFFFF_0000)
        let dimLit = dim.pixels.contains { $0 & 0xFF_FFFF != 0 }
        #expect(brightFull && !dimFull && dimLit, "a pulse: full red, then dimmer but never dark")
        #expect(render(blocker, 32, 8, at: PixelRenderer.pulsePeriod) == bright)
        let strip = render(blocker, 60, 1, at: .zero)
        let full = render(blocker, 60, 1, at: PixelRenderer.breathPeriod / 2)
        #expect(full.pixels.allSatisfy { $0 == 0xFFFF_0000 })
        #expect(strip.pixels.allSatisfy { $0 & 0xFF_FFFF < 0x10_0000 }, "nearly dark between breaths")
    }

    @Test func l4_stripShowsTheTintAndProgressAsFill() {
        let frame = render(NookActivity(title: "Copy", tint: .named(.cyan), progress: 0.25), 60, 1)
        #expect(frame.pixels.prefix(15).allSatisfy { $0 == 0xFF00_FFFF })
        #expect(frame.pixels.dropFirst(15).allSatisfy { $0 != 0xFF00_FFFF && $0 & 0xFF_FFFF != 0 })
        #expect(render(NookActivity(title: "Done", tint: .named(.green)), 60, 1).pixels.allSatisfy { $0 == 0xFF00_FF00 })
        let column = render(NookActivity(title: "Copy", tint: .named(.cyan), progress: 0.25), 1, 60)
        #expect(column.pixels.prefix(15).allSatisfy { $0 == 0xFF00_FFFF } && column.pixels.dropFirst(15).allSatisfy { $0 != 0xFF00_FFFF },
                "a vertical strip is a strip too, filled from the top")
    }

    @Test func l3_everyGeometryFrom1x1To40x12Draws() {
        // Any geometry the config accepts must draw, however little of a card fits.
        let cards = [NookActivity(title: "Backup of /home finished", systemImage: "checkmark.circle", tint: .named(.green), progress: 0.5),
                     NookActivity(title: "Door", presentation: .blocker(timeout: nil))]
        for (width, height) in (1...40).flatMap({ w in (1...12).map { (w, $0) } }) + [(1, 60), (1, 300)] {
            do {
                let renderer = PixelRenderer(size: PixelSize(width: width, height: height))
                var frame = Frame(width: width, height: height)
                for card in cards { renderer.render(card, elapsed: .milliseconds(700), into: &frame) }
                for home in [PixelHome.clock, .blank, .text("Hello")] { renderer.renderHome(home, hour: 23, minute: 59, into: &frame) }
            }
        }
    }

    @Test func l3_atLeastTwentyCommonIconsAndAGenericFallback() {
        #expect(PixelIcons.names.count >= 20)
        for name in ["hammer", "checkmark.circle", "bell", "envelope", "exclamationmark.triangle", "xmark.circle", "info.circle"] {
            #expect(PixelIcons.rows(for: name).known, "\(name)")
        }
        let unknown = PixelIcons.rows(for: "no.such.icon")
        #expect(!unknown.known && unknown.rows == PixelIcons.rows(for: PixelIcons.generic).rows)
        for name in PixelIcons.names { #expect(PixelIcons.rows(for: name).rows.count == 8) }
    }

    @Test func l3_theFontTableIsWhatDebiansFontFileSays() throws {
        // Tests/NookPixelTests/this file: the package root is three levels up.
        var parent = Substring(String(#filePath))
        for _ in 0..<3 { parent = parent[..<parent.lastIndex(of: "/")!] }
        let root = String(parent)
        let generated = root + "/.build/led-font.swift"
        _ = FileManager.default.createFile(atPath: generated, contents: nil)
        let deriving = Process()
        deriving.executableURL = URL(fileURLWithPath: root + "/Hardware/dev/led-font")
        deriving.standardOutput = FileHandle(forWritingAtPath: generated)
        try deriving.runAlone()
        #expect(deriving.waitForExit(seconds: 120) && deriving.terminationStatus == 0,
                "Hardware/dev/led-font needs xfonts-base (Hardware/dev/install-deps)")
        let fresh = try readText(generated)
        let committed = try readText(root + "/Sources/NookPixel/BitmapFontData.swift")
        #expect(fresh == committed, "BitmapFontData.swift is not what Hardware/dev/led-font derives from xfonts-base")
    }
}

func readText(_ path: String) throws -> String {
    guard let file = fopen(path, "r") else { throw TextReadError(path: path) }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count == 0 { break }
        bytes.append(contentsOf: buffer[0..<count])
    }
    return String(decoding: bytes, as: UTF8.self)
}

struct TextReadError: Error { let path: String }
