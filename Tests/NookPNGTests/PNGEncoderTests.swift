import Foundation
import NookDisplay
import NookPNG
import NookRender
import NookTestTraits
import Testing

/// V1: the live view's PNG encoder. Each PNG is read back by two decoders that share nothing
/// with it (cairo's, through libpng, and a few lines of Python's zlib and struct) and compared
/// pixel for pixel with the frame it was made from.
@Suite("V1 the live view's PNG encoder", .cpuBound)
struct PNGEncoderTests {
    /// A frame with every kind of row: flat colour, gradients, noise, and rows equal to the one above.
    static func sample(width: Int, height: Int, seed: UInt32) -> Frame {
        var frame = Frame(width: width, height: height, fill: 0xFF20_3040)
        var state = seed | 1
        for y in 0..<height {
            for x in 0..<width {
                switch (y / 3) % 4 {
                case 0: frame[x, y] = 0xFF00_0000 | UInt32(x & 0xFF) << 16 | UInt32(y & 0xFF) << 8 | UInt32((x ^ y) & 0xFF)
                case 1:
                    state ^= state << 13; state ^= state >> 17; state ^= state << 5
                    frame[x, y] = 0xFF00_0000 | (state & 0xFF_FFFF)
                case 2: frame[x, y] = x % 7 == 0 ? 0xFFFF_FFFF : 0xFF10_2030
                default: break
                }
            }
        }
        return frame
    }

    static func temporaryPath(_ name: String) -> String {
        NSTemporaryDirectory() + "nook-png-\(getpid())-\(name)"
    }

    @Test(arguments: [(1, 1), (3, 5), (17, 9), (1280, 400), (400, 1280)])
    func v1_aFrameEncodedAndReadBackByLibpngHasTheSamePixels(width: Int, height: Int) throws {
        let frame = Self.sample(width: width, height: height, seed: UInt32(width * 31 + height))
        let png = try PNGEncoder.encode(frame)
        let path = Self.temporaryPath("\(width)x\(height).png")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(png).write(to: URL(fileURLWithPath: path))
        let decoded = try PNG.read(from: path)
        #expect(decoded.size == frame.size)
        let differing = zip(decoded.pixels, frame.pixels).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) of \(frame.pixels.count) pixels differ")
    }

    @Test func v1_aFrameEncodedAndReadBackByPythonsZlibHasTheSamePixelsAndValidChecksums() throws {
        let frame = Self.sample(width: 97, height: 41, seed: 7)
        let png = try PNGEncoder.encode(frame)
        let path = Self.temporaryPath("python.png"), rawPath = Self.temporaryPath("python.rgb")
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: rawPath)
        }
        try Data(png).write(to: URL(fileURLWithPath: path))
        let rgb = frame.pixels.flatMap { [UInt8($0 >> 16 & 0xFF), UInt8($0 >> 8 & 0xFF), UInt8($0 & 0xFF)] }
        try Data(rgb).write(to: URL(fileURLWithPath: rawPath))
        // Every chunk's CRC, the IHDR, then the five filter types undone row by row.
        let script = """
            import struct, sys, zlib
            data = open(sys.argv[1], 'rb').read()
            assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n', 'signature'
            pos, idat, header = 8, b'', None
            while pos < len(data):
                length, kind = struct.unpack('>I4s', data[pos:pos + 8])
                body = data[pos + 8:pos + 8 + length]
                crc, = struct.unpack('>I', data[pos + 8 + length:pos + 12 + length])
                assert zlib.crc32(kind + body) == crc, 'crc of ' + kind.decode()
                if kind == b'IHDR': header = struct.unpack('>IIBBBBB', body)
                if kind == b'IDAT': idat += body
                pos += 12 + length
            width, height, depth, colour, _, _, interlace = header
            assert (depth, colour, interlace) == (8, 2, 0), header
            raw = zlib.decompress(idat)
            stride = width * 3
            rows, previous = [], bytearray(stride)
            for y in range(height):
                kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
                for i in range(stride):
                    a = line[i - 3] if i >= 3 else 0
                    b = previous[i]
                    c = previous[i - 3] if i >= 3 else 0
                    if kind == 1: line[i] = (line[i] + a) & 255
                    elif kind == 2: line[i] = (line[i] + b) & 255
                    elif kind == 3: line[i] = (line[i] + (a + b) // 2) & 255
                    elif kind == 4:
                        p = a + b - c
                        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                        line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
                    else: assert kind == 0, kind
                rows.append(bytes(line))
                previous = line
            assert b''.join(rows) == open(sys.argv[2], 'rb').read(), 'pixels differ'
            print('same', width, height)
            """
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = ["-c", script, path, rawPath]
        let output = Pipe.closedOnExec(), errors = Pipe.closedOnExec()
        python.standardOutput = output
        python.standardError = errors
        try python.runAlone()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        python.waitForExit(seconds: 60)
        #expect(python.terminationStatus == 0 && said.hasPrefix("same 97 41"), "\(said)\(complaint)")
    }

    @Test func v1_aCardLikeFrameCompressesWellAtTheFastLevel() throws {
        // Flat background with a few text-like strokes: what the glass shows most of the time.
        var frame = Frame(width: 1280, height: 400, fill: 0xFF1C_1C1E)
        for y in 150..<250 { for x in stride(from: 200, to: 1000, by: 9) { frame[x, y] = 0xFFFF_FFFF } }
        let png = try PNGEncoder.encode(frame)
        #expect(png.count < frame.pixels.count * 3 / 50, "\(png.count) bytes for a mostly flat 1280x400 frame")
    }
}
