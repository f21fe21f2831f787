internal import CZlib

/// Why a PNG would not decode (``PNGStructure/check(_:largestSide:)``).
public enum PNGStructureError: Error, Equatable, CustomStringConvertible {
    /// Larger than the caller draws, on either side.
    case tooLarge(width: Int, height: Int)
    /// What is wrong with it, in words: "its IDAT chunk's CRC is wrong".
    case broken(String)

    public var description: String {
        switch self {
        case .tooLarge(let width, let height): "it is \(width)x\(height) pixels"
        case .broken(let why): why
        }
    }
}

/// A PNG's structure checked without drawing it (M3: a fetched icon), as libpng would refuse it: the chunks and
/// their CRCs and order (IHDR first, one PLTE before the image data and required for a palette,
/// the IDAT chunks one after another, no critical chunk libpng does not know), IHDR's fields,
/// and the IDAT stream inflated (zlib, counted, never kept) to the size IHDR says, Adam7 too,
/// each row starting with a filter type libpng knows.
public enum PNGStructure {
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    private struct Header {
        var width: Int, height: Int, depth: Int, colour: Int, interlaced: Bool
    }

    public static func check(_ bytes: [UInt8], largestSide: Int) throws(PNGStructureError) -> (width: Int, height: Int) {
        func broken(_ why: String) -> PNGStructureError { .broken(why) }
        func bigEndian(_ offset: Int) -> Int { bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) } }
        var offset = signature.count
        var header: Header?
        var (data, palettes, dataEnded) = ([UInt8](), 0, false)
        var ended = false
        while !ended {
            guard bytes.count - offset >= 12 else { throw broken("it ends inside a chunk") }
            let length = bigEndian(offset)
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let named = type.utf8.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) ? type : "(not letters)"
            guard length <= bytes.count - offset - 12 else { throw broken("its \(named) chunk runs past the file") }
            let crc = bytes[(offset + 4)..<(offset + 8 + length)].withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32($0.count)) }
            guard UInt(crc) == UInt(bigEndian(offset + 8 + length)) else { throw broken("its \(named) chunk's CRC is wrong") }
            let content = Array(bytes[(offset + 8)..<(offset + 8 + length)])
            if type != "IHDR", header == nil { throw broken("its first chunk is not IHDR") }
            if type != "IDAT", !data.isEmpty { dataEnded = true }
            switch type {
            case "IHDR":
                guard header == nil, length == 13 else { throw broken("its IHDR chunk is not first or not 13 bytes") }
                header = try Self.header(content, largestSide: largestSide)
            case "PLTE":
                palettes += 1
                guard palettes == 1, data.isEmpty else { throw broken("its PLTE chunk is not the one before the image data") }
                guard length > 0, length % 3 == 0, length / 3 <= 1 << min(header!.depth, 8) else {
                    throw broken("its PLTE chunk of \(length) bytes is not a palette for \(header!.depth) bits")
                }
            case "IDAT":
                guard !dataEnded else { throw broken("its IDAT chunks are not one after another") }
                guard header!.colour != 3 || palettes == 1 else { throw broken("it has a palette's colour type and no PLTE chunk") }
                data += content
            case "IEND": ended = true
            default:
                // A critical chunk (its first letter upper case) that libpng does not know ends its reading.
                guard let first = type.utf8.first, !(0x41...0x5A).contains(first) else { throw broken("it has a critical chunk '\(named)' no decoder knows") }
            }
            offset += 12 + length
        }
        guard let header, !data.isEmpty else { throw broken("it has no image data") }
        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][header.colour]!
        // Adam7's seven passes: each a sub-image of its own, each row with its filter byte.
        let passes = header.interlaced
            ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            : [(0, 0, 1, 1)]
        let rows: [(count: Int, length: Int)] = passes.compactMap { pass in
            let (x, y, dx, dy) = pass
            let (width, height) = ((header.width - x + dx - 1) / dx, (header.height - y + dy - 1) / dy)
            return width > 0 && height > 0 ? (height, 1 + (width * channels * header.depth + 7) / 8) : nil
        }
        let expected = rows.reduce(0) { $0 + $1.count * $1.length }
        let inflated = try inflatedSize(data, atMost: expected + 1, rows: rows)
        guard inflated == expected else { throw broken("its image data inflates to \(inflated) bytes, not the \(expected) its header gives") }
        return (header.width, header.height)
    }

    private static func header(_ content: [UInt8], largestSide: Int) throws(PNGStructureError) -> Header {
        func broken(_ why: String) -> PNGStructureError { .broken(why) }
        let width = content[0..<4].reduce(0) { $0 << 8 | Int($1) }, height = content[4..<8].reduce(0) { $0 << 8 | Int($1) }
        guard (1...largestSide).contains(width), (1...largestSide).contains(height) else {
            throw .tooLarge(width: width, height: height)
        }
        let (depth, colour) = (Int(content[8]), Int(content[9]))
        guard [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]][colour]?.contains(depth) == true else {
            throw broken("colour type \(colour) with \(depth) bits is not a PNG's")
        }
        guard content[10] == 0, content[11] == 0, content[12] <= 1 else {
            throw broken("its compression, filter or interlace method (\(content[10]), \(content[11]), \(content[12])) is not a PNG's")
        }
        return Header(width: width, height: height, depth: depth, colour: colour, interlaced: content[12] == 1)
    }

    /// How many bytes `data` inflates to (at most `limit`), each row of `rows` (counts of rows of
    /// a length, pass by pass) starting with a filter type 0 to 4; or why not.
    private static func inflatedSize(_ data: [UInt8], atMost limit: Int, rows: [(count: Int, length: Int)]) throws(PNGStructureError) -> Int {
        var stream = z_stream()
        guard inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .broken("'inflateInit' failed: \(stream.msg.map { String(cString: $0) } ?? "no reason given")")
        }
        defer { inflateEnd(&stream) }
        var input = data, output = [UInt8](repeating: 0, count: 64 << 10)
        var total = 0, result = Z_OK
        // The next row's start, and where it is in `rows`.
        var (rowStart, pass, rowInPass) = (0, 0, 0)
        var badFilter: UInt8?
        input.withUnsafeMutableBufferPointer { input in
            stream.next_in = input.baseAddress
            stream.avail_in = UInt32(input.count)
            while result == Z_OK, total <= limit, badFilter == nil {
                output.withUnsafeMutableBufferPointer { output in
                    stream.next_out = output.baseAddress
                    stream.avail_out = UInt32(output.count)
                    result = inflate(&stream, Z_NO_FLUSH)
                    let produced = output.count - Int(stream.avail_out)
                    while pass < rows.count, rowStart < total + produced {
                        if output[rowStart - total] > 4 { badFilter = output[rowStart - total]; break }
                        rowStart += rows[pass].length
                        rowInPass += 1
                        if rowInPass == rows[pass].count { (pass, rowInPass) = (pass + 1, 0) }
                    }
                    total += produced
                }
                if result == Z_BUF_ERROR, stream.avail_in == 0 { break }
            }
        }
        if let badFilter { throw .broken("a row's filter type is \(badFilter), not 0 to 4") }
        guard result == Z_STREAM_END || total > limit else {
            let why = result == Z_BUF_ERROR ? "it ends early" : result == Z_NEED_DICT ? "it needs a preset dictionary"
                : stream.msg.map { String(cString: $0) } ?? "error \(result)"
            throw .broken("its image data does not inflate (zlib: \(why))")
        }
        return total
    }
}
