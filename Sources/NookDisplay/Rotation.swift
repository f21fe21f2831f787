/// Clockwise rotation from the logical (drawn) frame to the physical panel (R6).
public enum Rotation: Int, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case none = 0
    case quarter = 90
    case half = 180
    case threeQuarters = 270

    public init?(degrees: Int) {
        self.init(rawValue: ((degrees % 360) + 360) % 360)
    }

    public var degrees: Int { rawValue }
    public var swapsAxes: Bool { self == .quarter || self == .threeQuarters }
    public var description: String { "\(rawValue)°" }

    /// The rotation that undoes this one.
    public var inverse: Rotation { Rotation(degrees: 360 - rawValue) ?? .none }

    /// Applying `self` and then `other`.
    public func then(_ other: Rotation) -> Rotation {
        Rotation(degrees: rawValue + other.rawValue) ?? .none
    }
}

extension Frame {
    /// Edge of the square tiles a quarter turn walks through. Within a tile, 4x4 blocks are
    /// loaded as four SIMD rows and stored as four transposed rows, so every memory access moves
    /// 16 bytes; 128-pixel tiles keep a tile's source and destination rows in cache (its cost
    /// against a memcpy of the frame is `rotate90_vs_memcpy_*` in nook-bench).
    static let rotationTile = 128

    /// How many output rows one tile writes to, for output rows `rowBytes` apart.
    /// A tile keeps one cache line of each of its output rows in the L1 cache while it walks
    /// down the source; rows whose distance is a multiple of a large power of two fall into few
    /// of the cache's sets (a 32 KiB 8-way L1 has 64 sets of 64-byte lines: rows 4,096 bytes
    /// apart all share one set), and more rows than the set has ways evict each other. Bar
    /// panels are safe: 1,600 and 1,920-byte rows (1280x400, 1920x480 turned) spread over 64
    /// and 32 sets, and miss in L1 about as often as the lines they must touch; a
    /// 1,024-pixel-high frame (4,096-byte rows) does not, unless fewer rows go per tile.
    static func rotationTileRows(rowBytes: Int) -> Int {
        let lineBytes = 64, sets = 64, spareWays = 4
        let stride = max(1, rowBytes / lineBytes)
        var (a, b) = (stride, sets)
        while b != 0 { (a, b) = (b, a % b) }
        let distinctSets = sets / a
        return max(8, min(rotationTile, spareWays * distinctSets))
    }

    /// This frame turned clockwise by `rotation`.
    public func rotated(_ rotation: Rotation) -> Frame {
        let turned = size.rotated(rotation)
        var output = Frame(width: turned.width, height: turned.height)
        rotate(rotation, into: &output)
        return output
    }

    /// Writes this frame turned clockwise by `rotation` into `output`, which must already have
    /// the rotated size. Allocation-free, for the per-frame path.
    public func rotate(_ rotation: Rotation, into output: inout Frame) {
        precondition(output.size == size.rotated(rotation), "rotation target is \(output.size), needs \(size.rotated(rotation))")
        let (width, height) = (self.width, self.height)
        pixels.withUnsafeBufferPointer { sourceBuffer in
            output.pixels.withUnsafeMutableBufferPointer { targetBuffer in
                let source = sourceBuffer.baseAddress!
                let target = targetBuffer.baseAddress!
                switch rotation {
                case .none:
                    target.update(from: source, count: width * height)
                case .half:
                    let count = width * height
                    for index in 0..<count { target[count - 1 - index] = source[index] }
                case .quarter, .threeQuarters:
                    Self.quarterTurn(source, width: width, height: height, into: target, clockwise: rotation == .quarter)
                }
            }
        }
    }

    /// Quarter turn. Clockwise: source (x, y) lands at output row x, column height-1-y.
    /// Counter-clockwise: at output row width-1-x, column y. The output is `height` wide.
    private static func quarterTurn(_ source: UnsafePointer<UInt32>, width: Int, height: Int,
                                    into target: UnsafeMutablePointer<UInt32>, clockwise: Bool) {
        func destination(_ x: Int, _ y: Int) -> Int {
            clockwise ? x * height + (height - 1 - y) : (width - 1 - x) * height + y
        }
        let blockWidth = width - width % 4
        let blockHeight = height - height % 4
        let raw = UnsafeRawPointer(source)
        let rowBytes = height * 4
        let out = UnsafeMutableRawPointer(target)
        let tileRows = rotationTileRows(rowBytes: rowBytes)
        var tileY = 0
        while tileY < blockHeight {
            let yEnd = min(tileY + rotationTile, blockHeight)
            var tileX = 0
            while tileX < blockWidth {
                let xEnd = min(tileX + tileRows, blockWidth)
                var y = tileY
                while y < yEnd {
                    var x = tileX
                    while x < xEnd {
                        let r0 = raw.loadUnaligned(fromByteOffset: (y * width + x) * 4, as: SIMD4<UInt32>.self)
                        let r1 = raw.loadUnaligned(fromByteOffset: ((y + 1) * width + x) * 4, as: SIMD4<UInt32>.self)
                        let r2 = raw.loadUnaligned(fromByteOffset: ((y + 2) * width + x) * 4, as: SIMD4<UInt32>.self)
                        let r3 = raw.loadUnaligned(fromByteOffset: ((y + 3) * width + x) * 4, as: SIMD4<UInt32>.self)
                        if clockwise {
                            // Output rows x...x+3 from column height-4-y: source rows bottom-up.
                            let first = (x * height + height - 4 - y) * 4
                            out.storeBytes(of: SIMD4(r3[0], r2[0], r1[0], r0[0]), toByteOffset: first, as: SIMD4<UInt32>.self)
                            out.storeBytes(of: SIMD4(r3[1], r2[1], r1[1], r0[1]), toByteOffset: first + rowBytes, as: SIMD4<UInt32>.self)
                            out.storeBytes(of: SIMD4(r3[2], r2[2], r1[2], r0[2]), toByteOffset: first + 2 * rowBytes, as: SIMD4<UInt32>.self)
                            out.storeBytes(of: SIMD4(r3[3], r2[3], r1[3], r0[3]), toByteOffset: first + 3 * rowBytes, as: SIMD4<UInt32>.self)
                        } else {
                            // Output rows width-1-x down to width-4-x from column y: source rows top-down.
                            let first = ((width - 1 - x) * height + y) * 4
                            out.storeBytes(of: SIMD4(r0[0], r1[0], r2[0], r3[0]), toByteOffset: first, as: SIMD4<UInt32>.self)
                            out.storeBytes(of: SIMD4(r0[1], r1[1], r2[1], r3[1]), toByteOffset: first - rowBytes, as: SIMD4<UInt32>.self)
                            out.storeBytes(of: SIMD4(r0[2], r1[2], r2[2], r3[2]), toByteOffset: first - 2 * rowBytes, as: SIMD4<UInt32>.self)
                            out.storeBytes(of: SIMD4(r0[3], r1[3], r2[3], r3[3]), toByteOffset: first - 3 * rowBytes, as: SIMD4<UInt32>.self)
                        }
                        x += 4
                    }
                    y += 4
                }
                tileX += tileRows
            }
            tileY += rotationTile
        }
        // The edges that do not fill a 4x4 block, a pixel at a time.
        for y in 0..<height {
            let xStart = y < blockHeight ? blockWidth : 0
            for x in xStart..<width { target[destination(x, y)] = source[y * width + x] }
        }
    }
}
