import NookDisplay

/// An icon file (PNG, or GIF with its frames) as an LED matrix draws it (M3): read and decoded
/// by whoever made the screen (nookd, off the screen's executor), fitted into the 8x8 icon
/// cell here. An animated GIF's frame is a function of the time since the card came, so the
/// screen's injected clock drives it.
public struct PixelIconImage: Hashable, Sendable {
    public let width: Int
    public let height: Int
    /// Each frame fitted into the 8x8 cell once, when the file is read: a 1024x1024 icon would
    /// otherwise be averaged down again at every frame of a marquee, 30 a second.
    let cells: [FittedCell]
    /// How long each frame shows, in milliseconds (at least one each).
    let delays: [Int64]
    /// The side of the square an icon is fitted into.
    public static let cell = 8

    /// - Parameter frames: premultiplied ARGB, `width * height` a frame, row by row.
    public init(width: Int, height: Int, frames: [[UInt32]], delays: [Duration]) {
        precondition(!frames.isEmpty && frames.count == delays.count, "\(frames.count) frames, \(delays.count) delays")
        precondition(frames.allSatisfy { $0.count == width * height }, "a frame that is not \(width)x\(height)")
        self.width = width
        self.height = height
        cells = frames.map { FittedCell($0, width: width, height: height, cell: Self.cell) }
        self.delays = delays.map { max(1, Self.milliseconds($0)) }
    }

    /// The frames as held: how many pixels of the file's are kept (a cell's worth a frame).
    var keptPixels: Int { cells.reduce(0) { $0 + $1.colours.count } }

    public var isAnimated: Bool { cells.count > 1 }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    /// The frame shown `elapsed` after the card came: the animation loops for as long as it shows.
    public func frameIndex(at elapsed: Duration) -> Int {
        guard isAnimated else { return 0 }
        var into = max(0, Self.milliseconds(elapsed)) % delays.reduce(0, +)
        for (index, delay) in delays.enumerated() {
            if into < delay { return index }
            into -= delay
        }
        return 0
    }

    /// When, after the card came, the frame next changes after `elapsed`: always later than
    /// `elapsed`, so a screen that sleeps until then never spins. Nil for a still image.
    public func nextChange(after elapsed: Duration) -> Duration? {
        guard isAnimated else { return nil }
        let at = max(0, Self.milliseconds(elapsed))
        let cycle = delays.reduce(0, +)
        var end = at - at % cycle
        for delay in delays {
            end += delay
            if end > at { return .milliseconds(end) }
        }
        return .milliseconds(end)
    }

    /// Draws frame `index` fitted into the 8x8 square at (`x`, `y`), centred, at `level` of its
    /// brightness; clear pixels leave the LEDs as they were.
    func draw(frame index: Int, at x: Int, _ y: Int, level: Double = 1, into target: inout Frame) {
        let fitted = cells[index]
        let left = x + (Self.cell - fitted.width) / 2, top = y + (Self.cell - fitted.height) / 2
        for row in 0..<fitted.height {
            let py = top + row
            guard py >= 0, py < target.height else { continue }
            for column in 0..<fitted.width {
                let px = left + column
                guard px >= 0, px < target.width, let colour = fitted.colours[row * fitted.width + column] else { continue }
                func channel(_ average: Double) -> UInt32 { UInt32(min(255, (average * level).rounded())) }
                target[px, py] = 0xFF00_0000 | channel(colour.r) << 16 | channel(colour.g) << 8 | channel(colour.b)
            }
        }
    }
}

/// A frame fitted with its aspect into a `cell`x`cell` square: each LED the average of the
/// pixels it covers (a 16x16 or 32x32 icon shrinks without losing thin lines to sampling), or
/// nil where they are mostly clear (an LED cannot be half there).
struct FittedCell: Hashable, Sendable {
    struct Average: Hashable, Sendable { var r: Double, g: Double, b: Double }
    let width: Int, height: Int
    /// `width * height`, row by row.
    let colours: [Average?]

    init(_ pixels: [UInt32], width: Int, height: Int, cell: Int) {
        let scale = min(Double(cell) / Double(width), Double(cell) / Double(height))
        let fittedWidth = max(1, Int((Double(width) * scale).rounded())), fittedHeight = max(1, Int((Double(height) * scale).rounded()))
        var colours: [Average?] = []
        colours.reserveCapacity(fittedWidth * fittedHeight)
        for row in 0..<fittedHeight {
            let rows = row * height / fittedHeight..<max(row * height / fittedHeight + 1, (row + 1) * height / fittedHeight)
            for column in 0..<fittedWidth {
                let columns = column * width / fittedWidth..<max(column * width / fittedWidth + 1, (column + 1) * width / fittedWidth)
                var sum = (a: 0, r: 0, g: 0, b: 0)
                for sy in rows {
                    for sx in columns {
                        let pixel = pixels[sy * width + sx]
                        sum.a += Int(pixel >> 24)
                        sum.r += Int(pixel >> 16 & 0xFF)
                        sum.g += Int(pixel >> 8 & 0xFF)
                        sum.b += Int(pixel & 0xFF)
                    }
                }
                let count = Double(rows.count * columns.count)
                // Premultiplied, so the average is the colour over black, as the LEDs show it.
                colours.append(sum.a * 2 >= rows.count * columns.count * 255
                    ? Average(r: Double(sum.r) / count, g: Double(sum.g) / count, b: Double(sum.b) / count) : nil)
            }
        }
        self.width = fittedWidth
        self.height = fittedHeight
        self.colours = colours
    }
}
