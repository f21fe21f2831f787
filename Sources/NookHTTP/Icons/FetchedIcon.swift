internal import CZlib
import NookActivities
import NookGIF

/// A fetched body that is an icon nookd will draw (M3), told by its bytes (a server's
/// Content-Type is often wrong): a GIF that NookGIF decodes whole within nookd's bounds, or a
/// PNG whose chunks are whole with their CRCs and whose image data inflates to exactly the size
/// its header gives. A file that passes here is one nookd's decoder takes: a broken one would
/// have nookd refuse every card with its id until the cache let it go.
struct FetchedIcon {
    enum Kind: String { case png, gif }

    let kind: Kind
    let bytes: [UInt8]
    let width: Int
    let height: Int
    let frames: Int

    /// nookd draws icons of at most this many pixels a side (IconFile's bound).
    static let largestSide = 1024

    init(checking bytes: [UInt8], limit: Int) throws(HTTPSGet.Failure) {
        self.bytes = bytes
        if bytes.starts(with: PNGChunks.signature) {
            let header = try PNGChunks.check(bytes, largestSide: Self.largestSide)
            (kind, width, height, frames) = (.png, header.width, header.height, 1)
        } else if GIFDecoder.isGIF(bytes) {
            do throws(GIFError) {
                let gif = try GIFDecoder.decode(bytes, limits: GIFLimits(bytes: limit, side: Self.largestSide, frames: 256, decodedPixels: 1 << 22))
                (kind, width, height, frames) = (.gif, gif.width, gif.height, gif.frames.count)
            } catch {
                throw .init("is a GIF that cannot be drawn: \(error)")
            }
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            throw .init("is a JPEG, which nookd does not draw: put it in an icon directory as a PNG")
        } else {
            throw .init("is neither a PNG nor a GIF (it begins '\(SaidText.shown(String(decoding: bytes.prefix(24), as: UTF8.self), scalars: 24))')")
        }
        guard (1...Self.largestSide).contains(width), (1...Self.largestSide).contains(height) else {
            throw .init("is \(width)x\(height) pixels; nookd draws icons of at most \(Self.largestSide)x\(Self.largestSide)")
        }
    }
}

/// A PNG's structure checked without drawing it: the chunks, their CRCs, IHDR's fields, and the
/// IDAT stream inflated (zlib, the stream counted, never kept) to the size IHDR says, Adam7 too.
enum PNGChunks {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func check(_ bytes: [UInt8], largestSide: Int) throws(HTTPSGet.Failure) -> (width: Int, height: Int) {
        func broken(_ why: String) -> HTTPSGet.Failure { .init("is a PNG that cannot be drawn: \(why)") }
        func bigEndian(_ offset: Int) -> Int { bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) } }
        var offset = signature.count
        var header: (width: Int, height: Int, depth: Int, colour: Int, interlaced: Bool)?
        var data: [UInt8] = []
        var ended = false
        while !ended {
            guard bytes.count - offset >= 12 else { throw broken("it ends inside a chunk") }
            let length = bigEndian(offset)
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard length <= bytes.count - offset - 12 else { throw broken("its \(SaidText.shown(type, scalars: 4)) chunk runs past the file") }
            let crc = bytes[(offset + 4)..<(offset + 8 + length)].withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32($0.count)) }
            guard UInt(crc) == UInt(bigEndian(offset + 8 + length)) else { throw broken("its \(SaidText.shown(type, scalars: 4)) chunk's CRC is wrong") }
            let content = bytes[(offset + 8)..<(offset + 8 + length)]
            switch type {
            case "IHDR":
                guard header == nil, offset == signature.count, length == 13 else { throw broken("its IHDR chunk is not first or not 13 bytes") }
                let (width, height) = (bigEndian(offset + 8), bigEndian(offset + 12))
                guard (1...largestSide).contains(width), (1...largestSide).contains(height) else {
                    throw .init("is \(width)x\(height) pixels; nookd draws icons of at most \(largestSide)x\(largestSide)")
                }
                let (depth, colour) = (Int(content[content.startIndex + 8]), Int(content[content.startIndex + 9]))
                guard [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]][colour]?.contains(depth) == true else {
                    throw broken("colour type \(colour) with \(depth) bits is not a PNG's")
                }
                header = (width, height, depth, colour, content[content.startIndex + 12] == 1)
            case "IDAT": data += content
            case "IEND": ended = true
            default: break
            }
            guard header != nil else { throw broken("its first chunk is not IHDR") }
            offset += 12 + length
        }
        guard let header, !data.isEmpty else { throw broken("it has no image data") }
        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][header.colour]!
        func rowBytes(_ width: Int) -> Int { (width * channels * header.depth + 7) / 8 }
        // Adam7's seven passes: each a sub-image of its own, each row with its filter byte.
        let passes = header.interlaced
            ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            : [(0, 0, 1, 1)]
        let expected = passes.reduce(0) { total, pass in
            let (x, y, dx, dy) = pass
            let (width, height) = ((header.width - x + dx - 1) / dx, (header.height - y + dy - 1) / dy)
            return total + (width > 0 && height > 0 ? height * (1 + rowBytes(width)) : 0)
        }
        let inflated = try inflatedCount(data, atMost: expected + 1)
        guard inflated == expected else { throw broken("its image data inflates to \(inflated) bytes, not the \(expected) its header gives") }
        return (header.width, header.height)
    }

    /// How many bytes `data` inflates to (at most `limit`), or why it does not.
    private static func inflatedCount(_ data: [UInt8], atMost limit: Int) throws(HTTPSGet.Failure) -> Int {
        var stream = z_stream()
        guard inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .init("'inflateInit' failed: \(stream.msg.map { String(cString: $0) } ?? "no reason given")")
        }
        defer { inflateEnd(&stream) }
        var input = data, output = [UInt8](repeating: 0, count: 64 << 10)
        var total = 0, result = Z_OK
        input.withUnsafeMutableBufferPointer { input in
            stream.next_in = input.baseAddress
            stream.avail_in = UInt32(input.count)
            while result == Z_OK, total <= limit {
                output.withUnsafeMutableBufferPointer { output in
                    stream.next_out = output.baseAddress
                    stream.avail_out = UInt32(output.count)
                    result = inflate(&stream, Z_NO_FLUSH)
                    total += output.count - Int(stream.avail_out)
                }
                if result == Z_BUF_ERROR, stream.avail_in == 0 { break }
            }
        }
        guard result == Z_STREAM_END || total > limit else {
            throw .init("is a PNG that cannot be drawn: its image data does not inflate (zlib: \(result == Z_BUF_ERROR ? "it ends early" : stream.msg.map { String(cString: $0) } ?? "error \(result)"))")
        }
        return total
    }
}
