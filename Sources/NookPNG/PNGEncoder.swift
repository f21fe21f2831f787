internal import CZlib
import NookDisplay

/// Why a frame could not be made into a PNG: zlib's call and its message.
public struct PNGError: Error, Hashable, Sendable, CustomStringConvertible {
    public var call: String
    public var detail: String

    public init(call: String, detail: String) { (self.call, self.detail) = (call, detail) }

    public var description: String { "'\(call)' failed: \(detail)" }
}

/// PNG bytes of frames, for the live view (V1): 8-bit RGB, no alpha, no interlace, every row
/// filtered with `Up` (the first with `None`), deflated by zlib at a level chosen for speed.
/// Cards are flat colour with text: `Up` turns the background under and beside the text into
/// zeros, which the fastest deflate level squeezes as well as slower ones squeeze the raw rows.
public enum PNGEncoder {
    /// zlib's level 1: the fastest that still finds the runs `Up` leaves.
    public static let defaultLevel: Int32 = 1

    public static func encode(_ frame: Frame, level: Int32 = defaultLevel) throws(PNGError) -> [UInt8] {
        let (width, height) = (frame.width, frame.height)
        let rowBytes = 1 + 3 * width
        var raw = [UInt8](repeating: 0, count: rowBytes * height)
        frame.pixels.withUnsafeBufferPointer { pixels in
            raw.withUnsafeMutableBufferPointer { out in
                let source = pixels.baseAddress!
                let target = out.baseAddress!
                for y in 0..<height {
                    let row = target + y * rowBytes
                    let line = source + y * width
                    // Filter byte: 0 (None) for the first row, 2 (Up) for the rest.
                    row[0] = y == 0 ? 0 : 2
                    var offset = 1
                    if y == 0 {
                        for x in 0..<width {
                            let pixel = line[x]
                            row[offset] = UInt8(truncatingIfNeeded: pixel >> 16)
                            row[offset + 1] = UInt8(truncatingIfNeeded: pixel >> 8)
                            row[offset + 2] = UInt8(truncatingIfNeeded: pixel)
                            offset += 3
                        }
                    } else {
                        let above = line - width
                        for x in 0..<width {
                            let pixel = line[x], up = above[x]
                            row[offset] = UInt8(truncatingIfNeeded: pixel >> 16) &- UInt8(truncatingIfNeeded: up >> 16)
                            row[offset + 1] = UInt8(truncatingIfNeeded: pixel >> 8) &- UInt8(truncatingIfNeeded: up >> 8)
                            row[offset + 2] = UInt8(truncatingIfNeeded: pixel) &- UInt8(truncatingIfNeeded: up)
                            offset += 3
                        }
                    }
                }
            }
        }
        let compressed = try deflated(raw, level: level)
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png.reserveCapacity(compressed.count + 64)
        var header: [UInt8] = []
        appendBigEndian(UInt32(width), to: &header)
        appendBigEndian(UInt32(height), to: &header)
        // Bit depth 8, colour type 2 (RGB), deflate, adaptive filtering, no interlace.
        header += [8, 2, 0, 0, 0]
        appendChunk("IHDR", header, to: &png)
        appendChunk("IDAT", compressed, to: &png)
        appendChunk("IEND", [], to: &png)
        return png
    }

    /// `data` as one zlib stream, in one call (the whole frame is at hand).
    static func deflated(_ data: [UInt8], level: Int32) throws(PNGError) -> [UInt8] {
        var stream = z_stream()
        let started = deflateInit_(&stream, level, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard started == Z_OK else { throw PNGError(call: "deflateInit", detail: message(of: started, stream)) }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))))
        let result: Int32 = data.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress!)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress!
                stream.avail_out = uInt(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END else { throw PNGError(call: "deflate", detail: message(of: result, stream)) }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }

    private static func message(of code: Int32, _ stream: z_stream) -> String {
        if let text = stream.msg { return "(\(code)) " + String(cString: text) }
        return "(\(code)) " + String(cString: zError(code))
    }

    private static func appendBigEndian(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func appendChunk(_ type: String, _ data: [UInt8], to png: inout [UInt8]) {
        appendBigEndian(UInt32(data.count), to: &png)
        let start = png.count
        png += Array(type.utf8)
        png += data
        let checksum = png[start...].withUnsafeBufferPointer { bytes in
            crc32(0, bytes.baseAddress, uInt(bytes.count))
        }
        appendBigEndian(UInt32(truncatingIfNeeded: checksum), to: &png)
    }
}
