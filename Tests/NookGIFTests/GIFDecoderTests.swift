import Foundation
import NookGIF
import NookTestSupport
import Testing

/// The icon files' GIF decoder (R3, M3): frames composed as a viewer shows them, delays as
/// browsers keep them, and every bound and malformed file refused with what was wrong.
@Suite("M3 GIF icon files")
struct GIFDecoderTests {
    /// A byte a character: `\u{80}` is the byte 0x80, not its UTF-8.
    static func bytes(_ text: String) -> [UInt8] { text.unicodeScalars.map { UInt8($0.value) } }

    static let red: UInt32 = 0xFFFF_0000, green: UInt32 = 0xFF00_FF00, blue: UInt32 = 0xFF00_00FF

    @Test func m3_aStaticGIFDecodesToItsColoursRowByRow() throws {
        let indices: [UInt8] = (0..<12).map { UInt8($0 % 3) }
        let bytes = TestGIF.encode(width: 4, height: 3, palette: [0xFF0000, 0x00FF00, 0x0000FF],
                                   frames: [.init(indices: indices, width: 4, height: 3)])
        let image = try GIFDecoder.decode(bytes)
        #expect(image.width == 4 && image.height == 3 && !image.isAnimated)
        let colours: [UInt32] = [Self.red, Self.green, Self.blue]
        let expected = indices.map { colours[Int($0)] }
        #expect(image.frames[0].pixels == expected)
    }

    @Test func m3_aLongFrameKeepsEveryPixelAcrossClearCodesAndSubBlocks() throws {
        // 64x64: many clear codes and many 255-byte sub-blocks.
        let indices: [UInt8] = (0..<4096).map { (index: Int) -> UInt8 in UInt8((index * 7 + index / 64) % 4) }
        let bytes = TestGIF.encode(width: 64, height: 64, palette: [0, 0xFF0000, 0x00FF00, 0x0000FF],
                                   frames: [.init(indices: indices, width: 64, height: 64)])
        let image = try GIFDecoder.decode(bytes)
        let colours: [UInt32] = [0xFF00_0000, Self.red, Self.green, Self.blue]
        let expected = indices.map { colours[Int($0)] }
        #expect(image.frames[0].pixels == expected)
    }

    @Test func m3_framesAreComposedWithTransparencyDisposalAndLocalTables() throws {
        let full = [UInt8](repeating: 0, count: 4)
        let bytes = TestGIF.encode(width: 2, height: 2, palette: [0xFF0000, 0x00FF00], frames: [
            // Red all over, left in place.
            .init(indices: full, width: 2, height: 2, delayCentiseconds: 5, disposal: 1),
            // Green top-left only, the rest transparent: red shows through; then cleared.
            .init(indices: [1, 0, 0, 0], width: 2, height: 2, delayCentiseconds: 0, disposal: 2, transparent: 0),
            // One pixel at (1, 1) in a local table's blue, then restored to what was before.
            .init(indices: [0], width: 1, height: 1, delayCentiseconds: 1, disposal: 3, left: 1, top: 1, localPalette: [0x0000FF]),
            // Nothing drawn (all transparent): the screen as disposal left it.
            .init(indices: [1], width: 1, height: 1, transparent: 1),
        ])
        let image = try GIFDecoder.decode(bytes)
        #expect(image.frames.map(\.pixels) == [
            [Self.red, Self.red, Self.red, Self.red],
            [Self.green, Self.red, Self.red, Self.red],
            [0, 0, 0, Self.blue],
            [0, 0, 0, 0],
        ])
        #expect(image.frames.map(\.delayCentiseconds) == [5, 0, 1, 10])
        // 0 and 1 hundredths are shown for a tenth of a second, as browsers show them.
        #expect(image.frames.map(\.shownFor) == [.milliseconds(50), .milliseconds(100), .milliseconds(100), .milliseconds(100)])
    }

    @Test func m3_anInterlacedImageFillsItsRowsInTheFourPasses() throws {
        // Eight rows, each one colour by its row number; sent in interlaced order.
        let palette: [UInt32] = (0..<8).map { UInt32($0) * 0x10 }
        let order = [0, 4, 2, 6, 1, 3, 5, 7]
        var bytes = TestGIF.encode(width: 1, height: 8, palette: palette,
                                   frames: [.init(indices: order.map(UInt8.init), width: 1, height: 8)])
        // The descriptor's flags: after the header, the 8-colour table, the control extension
        // and the descriptor's position and size; the LZW code size (8) follows them.
        let flags = 13 + 24 + 8 + 9
        #expect(bytes[flags - 9] == 0x2C && bytes[flags + 1] == 8)
        bytes[flags] |= 0x40
        let image = try GIFDecoder.decode(bytes)
        let expected: [UInt32] = (0..<8).map { 0xFF00_0000 | UInt32($0) * 0x10 }
        #expect(image.frames[0].pixels == expected)
    }

    static let oneFrame = TestGIF.encode(width: 2, height: 2, palette: [0xFF0000, 0x00FF00],
                                         frames: [.init(indices: [0, 1, 1, 0], width: 2, height: 2)])

    @Test(arguments: [
        (Self.bytes("GIF89a"), "the file ends at offset 6 inside the logical screen's width"),
        (Self.bytes("GIF88a\u{2}\0\u{2}\0\0\0\0;"), "the file is not a GIF (no GIF87a or GIF89a signature)"),
        (Self.bytes("GIF87a\0\0\u{2}\0\0\0\0;"), "the file declares a screen of 0x2 pixels"),
        (Self.bytes("GIF87a\u{1}\0\u{1}\0\0\0\0;"), "the file holds no image"),
        (Self.bytes("GIF87a\u{1}\0\u{1}\0\0\0\0"), "the file ends at offset 13 inside the next block (the file ends without a trailer)"),
        (Self.bytes("GIF87a\u{1}\0\u{1}\0\0\0\0!"), "the file ends at offset 14 inside an extension's label"),
        (Self.bytes("GIF87a\u{1}\0\u{1}\0\0\0\0x"), "the file has byte 0x78 at offset 13 where a block should start"),
        (Self.bytes("GIF87a\u{1}\0\u{1}\0\0\0\0,\0\0\0\0\u{1}\0\u{1}\0\0\u{2}\u{2}\u{4}\0;"), "image 1 has no colour table"),
        (Self.bytes("GIF87a\u{1}\0\u{1}\0\u{80}\0\0\0\0\0\u{1}\u{1}\u{1},\0\0\0\0\u{1}\0\u{1}\0\0\u{C}"),
         "image 1 has an LZW code size of 12; it must be 2 to 8"),
        (Self.bytes("GIF87a\u{1}\0\u{1}\0\u{80}\0\0\0\0\0\u{1}\u{1}\u{1},\0\0\0\0\u{1}\0\u{1}\0\0\u{2}\u{1}\u{5}\0;"),
         "image 1's data ends after 0 of its 1 pixels"),
        (Self.bytes("GIF87a\u{1}\0\u{1}\0\u{80}\0\0\0\0\0\u{1}\u{1}\u{1},\0\0\0\0\u{1}\0\u{1}\0\0\u{2}\u{1}\u{7}\0;"),
         "image 1's data starts with code 7, not a colour"),
        (Self.bytes("GIF87a\u{1}\0\u{1}\0\u{80}\0\0\0\0\0\u{1}\u{1}\u{1},\0\0\0\0\u{1}\0\u{1}\0\0\u{2}\u{9}"),
         "the file ends at offset 31 inside image 1's data"),
        (Self.bytes("GIF89a\u{1}\0\u{1}\0\0\0\0!\u{F9}\u{3}\0\0\0\0;"),
         "the file has a graphic control extension of 3 bytes at offset 15; it has 4"),
    ] as [([UInt8], String)])
    func m3_aMalformedGIFIsRefusedSayingWhatIsWrong(bytes: [UInt8], problem: String) {
        #expect(throws: GIFError(problem)) { try GIFDecoder.decode(bytes) }
    }

    @Test func m3_everyBoundIsCheckedBeforeItIsAllocated() throws {
        let two = TestGIF.encode(width: 2, height: 2, palette: [0, 0xFFFFFF], frames: [
            .init(indices: [0, 1, 1, 0], width: 2, height: 2), .init(indices: [1, 0, 0, 1], width: 2, height: 2),
        ])
        #expect(try GIFDecoder.decode(two).frames.count == 2)
        func refusal(_ limits: GIFLimits, _ bytes: [UInt8] = two) -> String {
            do { _ = try GIFDecoder.decode(bytes, limits: limits); return "" } catch { return error.problem }
        }
        let roomy = GIFLimits(bytes: 1 << 20, side: 64, frames: 8, decodedPixels: 1 << 12)
        #expect(refusal(GIFLimits(bytes: 40, side: 64, frames: 8, decodedPixels: 1 << 12)) == "the file is \(two.count) bytes; a GIF may have at most 40")
        #expect(refusal(GIFLimits(bytes: 1 << 20, side: 1, frames: 8, decodedPixels: 1 << 12)) == "the file is 2x2 pixels; a GIF may be at most 1x1")
        #expect(refusal(GIFLimits(bytes: 1 << 20, side: 64, frames: 1, decodedPixels: 1 << 12)) == "the file has more than 1 frames")
        #expect(refusal(GIFLimits(bytes: 1 << 20, side: 64, frames: 8, decodedPixels: 7))
                == "the file would decode to more than 7 pixels (2 frames of 2x2)")
        // A frame larger than the side, in a screen that fits: refused before its pixels are read.
        let wide = TestGIF.encode(width: 2, height: 2, palette: [0, 0xFFFFFF], frames: [.init(indices: [0], width: 65, height: 1)])
        #expect(refusal(roomy, wide) == "image 1 is 65x1 pixels; a GIF may be at most 64x64")
        // 65535 x 65535 claimed in 13 bytes.
        #expect(refusal(.icon, Self.bytes("GIF89a\u{FF}\u{FF}\u{FF}\u{FF}\0\0\0;")) == "the file is 65535x65535 pixels; a GIF may be at most 1024x1024")
    }

    @Test func m3_framesLargerThanTheScreenCountTheirOwnPixelsTowardsTheDecodedBound() throws {
        // A frame is decoded whole before it is clipped to the screen: its own pixels count, or
        // a 1x1 screen of 256 frames of 1024x1024 (a few hundred kilobytes of LZW) takes
        // minutes of nookd's CPU at every enqueue.
        let beyond = TestGIF.encode(width: 1, height: 1, palette: [0, 0xFFFFFF], frames: [
            .init(indices: [0, 1, 1, 0], width: 2, height: 2), .init(indices: [1, 0, 0, 1], width: 2, height: 2),
        ])
        #expect(try GIFDecoder.decode(beyond, limits: GIFLimits(bytes: 1 << 20, side: 64, frames: 8, decodedPixels: 8)).frames.count == 2)
        #expect(throws: GIFError("the file would decode more than 7 pixels (image 2 is 2x2, after 4 in the images before it)")) {
            try GIFDecoder.decode(beyond, limits: GIFLimits(bytes: 1 << 20, side: 64, frames: 8, decodedPixels: 7))
        }
    }
}

/// The fuzz target's seeds are what their names say: the well-formed ones decode, the
/// malformed ones are refused (so the corpus replayed by FuzzCorpusTests covers both ways).
@Suite("M3 the GIF seed corpus")
struct GIFSeedTests {
    static let directory: String = {
        let file = #filePath
        return String(file[..<file.range(of: "/Tests/")!.lowerBound]) + "/Tests/Fuzz/gif/"
    }()

    @Test(arguments: [
        ("seed-01-static-87a.gif", "1 frames of 8x8"), ("seed-02-animated-disposal.gif", "3 frames of 8x8"),
        ("seed-03-local-table-interlaced.gif", "1 frames of 8x8"), ("seed-08-frame-outside-screen.gif", "1 frames of 4x4"),
        ("seed-09-index-past-table.gif", "1 frames of 2x2"), ("seed-10-many-frames.gif", "40 frames of 1x1"),
        ("seed-04-truncated.gif", "the file ends at offset 40 inside image 1's data"),
        ("seed-05-huge-screen.gif", "the file is 65535x65535 pixels; a GIF may be at most 1024x1024"),
        ("seed-06-bad-lzw-code.gif", "image 1's data starts with code 7, not a colour"),
        ("seed-07-no-trailer.gif", "the file ends at offset 113 inside the next block (the file ends without a trailer)"),
        ("seed-11-no-colour-table.gif", "image 1 has no colour table"),
        ("seed-12-garbage-after-header.gif", "the file has byte 0x99 at offset 25 where a block should start"),
    ])
    func m3_eachSeedDecodesOrIsRefusedAsItsNameSays(file: String, outcome: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.directory + file)))
        do {
            let image = try GIFDecoder.decode(bytes)
            #expect("\(image.frames.count) frames of \(image.width)x\(image.height)" == outcome)
        } catch {
            #expect(error.problem == outcome)
        }
    }
}
