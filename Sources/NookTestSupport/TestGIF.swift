/// Writes small GIF files for tests (R3, M3): every frame's LZW data is plain codes of nine
/// bits with a clear code often enough that the code width never grows, which every decoder
/// reads as it reads any other GIF.
public enum TestGIF {
    public struct Frame: Sendable {
        /// Colour indices, `width * height` of them, row by row.
        public var indices: [UInt8]
        public var left = 0, top = 0, width: Int, height: Int
        public var delayCentiseconds = 10
        public var disposal = 0
        public var transparent: UInt8?
        /// A local colour table (RGB triples) instead of the global one.
        public var localPalette: [UInt32]?

        public init(indices: [UInt8], width: Int, height: Int, delayCentiseconds: Int = 10, disposal: Int = 0,
                    transparent: UInt8? = nil, left: Int = 0, top: Int = 0, localPalette: [UInt32]? = nil) {
            self.indices = indices
            self.width = width
            self.height = height
            self.delayCentiseconds = delayCentiseconds
            self.disposal = disposal
            self.transparent = transparent
            self.left = left
            self.top = top
            self.localPalette = localPalette
        }
    }

    /// A GIF89a of `width`x`height` with `palette` (`0xRRGGBB` each) as its global colour table.
    public static func encode(width: Int, height: Int, palette: [UInt32], frames: [Frame]) -> [UInt8] {
        var bytes = Array("GIF89a".utf8)
        func word(_ value: Int) { bytes += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func table(_ colours: [UInt32]) -> UInt8 {
            var size = 0
            while 2 << size < colours.count { size += 1 }
            for entry in 0..<(2 << size) {
                let colour = entry < colours.count ? colours[entry] : 0
                bytes += [UInt8(colour >> 16 & 0xFF), UInt8(colour >> 8 & 0xFF), UInt8(colour & 0xFF)]
            }
            return UInt8(size)
        }
        word(width)
        word(height)
        var size = 0
        while 2 << size < palette.count { size += 1 }
        bytes += [0x80 | UInt8(size), 0, 0]
        _ = table(palette)
        for frame in frames {
            bytes += [0x21, 0xF9, 4, UInt8(frame.disposal << 2) | (frame.transparent == nil ? 0 : 1)]
            word(frame.delayCentiseconds)
            bytes += [frame.transparent ?? 0, 0]
            bytes.append(0x2C)
            word(frame.left)
            word(frame.top)
            word(frame.width)
            word(frame.height)
            if let local = frame.localPalette {
                bytes.append(0)
                let at = bytes.count - 1
                bytes[at] = 0x80 | table(local)
            } else {
                bytes.append(0)
            }
            bytes.append(8)
            var data: [UInt8] = []
            var bits = 0, held = 0
            func emit(_ code: Int) {
                bits |= code << held
                held += 9
                while held >= 8 {
                    data.append(UInt8(bits & 0xFF))
                    bits >>= 8
                    held -= 8
                }
            }
            for (index, value) in frame.indices.enumerated() {
                if index % 254 == 0 { emit(256) }
                emit(Int(value))
            }
            emit(257)
            if held > 0 { data.append(UInt8(bits & 0xFF)) }
            var offset = 0
            while offset < data.count {
                let chunk = min(255, data.count - offset)
                bytes.append(UInt8(chunk))
                bytes += data[offset..<(offset + chunk)]
                offset += chunk
            }
            bytes.append(0)
        }
        bytes.append(0x3B)
        return bytes
    }
}
