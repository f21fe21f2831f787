/// Reads a GIF's bytes in order; every read says what it was reading when the file ends.
struct ByteReader {
    let bytes: [UInt8]
    var offset: Int

    mutating func byte(_ what: @autoclosure () -> String) throws(GIFError) -> UInt8 {
        guard offset < bytes.count else { throw GIFError("the file ends at offset \(offset) inside \(what())") }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A little-endian 16-bit number.
    mutating func word(_ what: @autoclosure () -> String) throws(GIFError) -> Int {
        let low = try byte(what())
        return Int(low) | Int(try byte(what())) << 8
    }

    /// `entries` RGB triples as opaque ARGB.
    mutating func colourTable(entries: Int, _ what: String) throws(GIFError) -> [UInt32] {
        guard bytes.count - offset >= entries * 3 else { throw GIFError("the file ends at offset \(bytes.count) inside \(what)") }
        var table: [UInt32] = []
        table.reserveCapacity(entries)
        for entry in 0..<entries {
            let at = offset + entry * 3
            table.append(0xFF00_0000 | UInt32(bytes[at]) << 16 | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]))
        }
        offset += entries * 3
        return table
    }

    mutating func graphicControl() throws(GIFError) -> GraphicControl {
        let size = try byte("a graphic control extension")
        guard size == 4 else { throw GIFError("the file has a graphic control extension of \(size) bytes at offset \(offset - 1); it has 4") }
        let packed = try byte("a graphic control extension")
        let delay = try word("a graphic control extension's delay")
        let transparent = try byte("a graphic control extension's transparent index")
        try skipSubBlocks("a graphic control extension")
        return GraphicControl(disposal: Int(packed >> 2) & 7, delay: delay, transparentIndex: packed & 1 != 0 ? Int(transparent) : nil)
    }

    mutating func imageDescriptor(number: Int, limits: GIFLimits) throws(GIFError) -> GIFImageDescriptor {
        let what = "image \(number)'s descriptor"
        let left = try word(what), top = try word(what), width = try word(what), height = try word(what)
        let packed = try byte(what)
        guard width > 0, height > 0 else { throw GIFError("image \(number) is \(width)x\(height) pixels") }
        guard width <= limits.side, height <= limits.side else {
            throw GIFError("image \(number) is \(width)x\(height) pixels; a GIF may be at most \(limits.side)x\(limits.side)")
        }
        let table = packed & 0x80 != 0 ? try colourTable(entries: 2 << (packed & 7), "image \(number)'s colour table") : nil
        let codeSize = Int(try byte("image \(number)'s LZW code size"))
        guard (2...8).contains(codeSize) else { throw GIFError("image \(number) has an LZW code size of \(codeSize); it must be 2 to 8") }
        return GIFImageDescriptor(left: left, top: top, width: width, height: height, interlaced: packed & 0x40 != 0,
                                  localTable: table, codeSize: codeSize)
    }

    /// Data sub-blocks up to the empty one, joined (never more than the file holds).
    mutating func subBlocks(_ what: String) throws(GIFError) -> [UInt8] {
        var data: [UInt8] = []
        while true {
            let size = Int(try byte(what))
            guard size > 0 else { return data }
            guard bytes.count - offset >= size else { throw GIFError("the file ends at offset \(bytes.count) inside \(what)") }
            data.append(contentsOf: bytes[offset..<(offset + size)])
            offset += size
        }
    }

    mutating func skipSubBlocks(_ what: String) throws(GIFError) {
        while true {
            let size = Int(try byte(what))
            guard size > 0 else { return }
            guard bytes.count - offset >= size else { throw GIFError("the file ends at offset \(bytes.count) inside \(what)") }
            offset += size
        }
    }
}

/// GIF's variable-width LZW (codes of up to 12 bits, least significant bit first).
enum LZW {
    static func decode(_ data: [UInt8], minimumCodeSize: Int, pixels: Int, image: Int) throws(GIFError) -> [UInt8] {
        let clear = 1 << minimumCodeSize, end = clear + 1
        var prefix = [UInt16](repeating: 0, count: 4096)
        var suffix = [UInt8](repeating: 0, count: 4096)
        var first = [UInt8](repeating: 0, count: 4096)
        for code in 0..<clear { suffix[code] = UInt8(truncatingIfNeeded: code); first[code] = UInt8(truncatingIfNeeded: code) }
        var output: [UInt8] = []
        output.reserveCapacity(pixels)
        var stack: [UInt8] = []
        var codeSize = minimumCodeSize + 1
        var next = end + 1
        var previous: Int?
        var bits = 0, held = 0, position = 0
        while output.count < pixels {
            while held < codeSize {
                guard position < data.count else {
                    throw GIFError("image \(image)'s data ends after \(output.count) of its \(pixels) pixels")
                }
                bits |= Int(data[position]) << held
                held += 8
                position += 1
            }
            let code = bits & ((1 << codeSize) - 1)
            bits >>= codeSize
            held -= codeSize
            if code == clear {
                codeSize = minimumCodeSize + 1
                next = end + 1
                previous = nil
                continue
            }
            if code == end {
                throw GIFError("image \(image)'s data ends after \(output.count) of its \(pixels) pixels")
            }
            guard let last = previous else {
                guard code < clear else { throw GIFError("image \(image)'s data starts with code \(code), not a colour") }
                output.append(UInt8(truncatingIfNeeded: code))
                previous = code
                continue
            }
            guard code <= next else { throw GIFError("image \(image)'s data has code \(code) where at most \(next) may come") }
            // A code not yet in the table (KwKwK) is the previous string and its first byte.
            var walk = code == next ? last : code
            stack.removeAll(keepingCapacity: true)
            if code == next { stack.append(first[last]) }
            while walk >= clear {
                stack.append(suffix[walk])
                walk = Int(prefix[walk])
            }
            stack.append(UInt8(truncatingIfNeeded: walk))
            let head = stack.last!
            for byte in stack.reversed() where output.count < pixels { output.append(byte) }
            if next < 4096 {
                prefix[next] = UInt16(last)
                suffix[next] = head
                first[next] = first[last]
                next += 1
                if next == 1 << codeSize, codeSize < 12 { codeSize += 1 }
            }
            previous = code
        }
        return output
    }
}
