/// A full frame of XRGB8888 pixels: one `UInt32` per pixel, `0xFFRRGGBB`, row-major with no
/// padding. This is DRM's `XRGB8888` and cairo's `RGB24` on a little-endian machine, so a
/// frame is copied to scanout memory row by row with no conversion. Scanout ignores the X byte;
/// it is always `0xFF` because that is what cairo writes, so equal colours are equal words.
public struct Frame: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt32]

    public init(width: Int, height: Int, fill: UInt32 = 0xFF00_0000) {
        precondition(width > 0 && height > 0, "a frame needs a positive size, got \(width)x\(height)")
        self.width = width
        self.height = height
        pixels = [UInt32](repeating: fill, count: width * height)
    }

    public init(width: Int, height: Int, pixels: [UInt32]) {
        precondition(pixels.count == width * height, "\(pixels.count) pixels do not make a \(width)x\(height) frame")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Copies `other`'s pixels into this frame's own storage (no new allocation unless the
    /// storage is shared, or the sizes differ): a frame kept for reuse stays faulted in, where a
    /// fresh 2 MiB buffer costs hundreds of page faults on first touch.
    public mutating func overwrite(with other: Frame) {
        guard other.size == size else {
            self = other
            return
        }
        pixels.withUnsafeMutableBufferPointer { target in
            other.pixels.withUnsafeBufferPointer { source in
                target.baseAddress!.update(from: source.baseAddress!, count: source.count)
            }
        }
    }

    /// Copies the rectangle at (`x`, `y`) of `other`, a frame of the same size, into the same
    /// place of this one; the part outside the frames is left out.
    public mutating func overwrite(with other: Frame, x: Int, y: Int, width: Int, height: Int) {
        precondition(other.size == size, "a \(other.size) frame copied in part into a \(size) one")
        let (left, right) = (Swift.max(0, x), Swift.min(self.width, x + width))
        let (top, bottom) = (Swift.max(0, y), Swift.min(self.height, y + height))
        guard left < right, top < bottom else { return }
        let stride = self.width
        pixels.withUnsafeMutableBufferPointer { target in
            other.pixels.withUnsafeBufferPointer { source in
                for row in top..<bottom {
                    (target.baseAddress! + row * stride + left).update(from: source.baseAddress! + row * stride + left, count: right - left)
                }
            }
        }
    }

    /// Sets every pixel to `pixel`, in this frame's own storage.
    ///
    /// The first 4 KiB are written pixel by pixel and the rest copied from them by libc
    /// (`copyMemory` is `memmove`), which stores a cache line at a time: the compiler's loop for
    /// `update(repeating:)` stores 16 bytes at a time, which made every card's background fill (a
    /// whole frame) slower than a `memset` of it.
    public mutating func fill(_ pixel: UInt32) {
        pixels.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let count = buffer.count
            let block = Swift.min(count, Self.fillBlockPixels)
            UnsafeMutableBufferPointer(start: base, count: block).update(repeating: pixel)
            var filled = block
            while filled < count {
                let next = Swift.min(block, count - filled)
                UnsafeMutableRawPointer(base + filled).copyMemory(from: base, byteCount: next * MemoryLayout<UInt32>.stride)
                filled += next
            }
        }
    }

    /// The block `fill` writes and then copies: small enough to stay in the L1 cache.
    static let fillBlockPixels = 1024

    public subscript(x: Int, y: Int) -> UInt32 {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }
}

/// A width and height in pixels.
public struct PixelSize: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Parses `WIDTHxHEIGHT`, such as `1280x400`.
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              (1...16384).contains(width), (1...16384).contains(height) else { return nil }
        self.init(width: width, height: height)
    }

    public var description: String { "\(width)x\(height)" }

    /// The size after turning by `rotation`.
    public func rotated(_ rotation: Rotation) -> PixelSize {
        rotation.swapsAxes ? PixelSize(width: height, height: width) : self
    }
}

/// An RGB colour; `pixel` is its XRGB8888 value.
public struct RGB: Hashable, Sendable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public init(hex: UInt32) {
        self.init(red: UInt8(hex >> 16 & 0xFF), green: UInt8(hex >> 8 & 0xFF), blue: UInt8(hex & 0xFF))
    }

    public init(pixel: UInt32) { self.init(hex: pixel) }

    /// The XRGB8888 word: `0xFFRRGGBB`.
    public var pixel: UInt32 { 0xFF00_0000 | UInt32(red) << 16 | UInt32(green) << 8 | UInt32(blue) }

    public var description: String {
        "#" + [red, green, blue].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
