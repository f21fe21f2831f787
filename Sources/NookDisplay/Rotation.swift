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
    /// Edge of the square tiles a quarter turn copies through: 16x16 `UInt32`s keep source and
    /// destination rows of a tile in L1; larger tiles thrash at a 5 KiB stride.
    static let rotationTile = 16

    /// This frame turned clockwise by `rotation`.
    public func rotated(_ rotation: Rotation) -> Frame {
        var output = Frame(width: size.rotated(rotation).width, height: size.rotated(rotation).height)
        rotate(rotation, into: &output)
        return output
    }

    /// Writes this frame turned clockwise by `rotation` into `output`, which must already have
    /// the rotated size. Allocation-free, for the per-frame path.
    public func rotate(_ rotation: Rotation, into output: inout Frame) {
        precondition(output.size == size.rotated(rotation), "rotation target is \(output.size), needs \(size.rotated(rotation))")
        let (width, height) = (self.width, self.height)
        pixels.withUnsafeBufferPointer { source in
            output.pixels.withUnsafeMutableBufferPointer { target in
                switch rotation {
                case .none:
                    UnsafeMutableRawPointer(target.baseAddress!).copyMemory(
                        from: source.baseAddress!, byteCount: source.count * MemoryLayout<UInt32>.stride)
                case .half:
                    let count = width * height
                    for index in 0..<count { target[count - 1 - index] = source[index] }
                case .quarter, .threeQuarters:
                    // Output is height wide. Quarter: (x, y) -> (height-1-y, x).
                    // Three quarters: (x, y) -> (y, width-1-x).
                    let tile = Frame.rotationTile
                    let outWidth = height
                    var tileY = 0
                    while tileY < height {
                        let yEnd = min(tileY + tile, height)
                        var tileX = 0
                        while tileX < width {
                            let xEnd = min(tileX + tile, width)
                            for y in tileY..<yEnd {
                                let row = y * width
                                if rotation == .quarter {
                                    let outX = height - 1 - y
                                    for x in tileX..<xEnd { target[x * outWidth + outX] = source[row + x] }
                                } else {
                                    for x in tileX..<xEnd { target[(width - 1 - x) * outWidth + y] = source[row + x] }
                                }
                            }
                            tileX += tile
                        }
                        tileY += tile
                    }
                }
            }
        }
    }
}
