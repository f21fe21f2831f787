import NookDisplay

/// An icon file (PNG, or GIF with its frames) as an LED matrix draws it (M3): read and decoded
/// by whoever made the screen (nookd, off the screen's executor), fitted into the 8x8 icon
/// cell here. An animated GIF's frame is a function of the time since the card came, so the
/// screen's injected clock drives it.
public struct PixelIconImage: Hashable, Sendable {
    public let width: Int
    public let height: Int
    /// Premultiplied ARGB, `width * height` a frame, row by row.
    public let frames: [[UInt32]]
    /// How long each frame shows, in milliseconds (at least one each).
    let delays: [Int64]

    public init(width: Int, height: Int, frames: [[UInt32]], delays: [Duration]) {
        precondition(!frames.isEmpty && frames.count == delays.count, "\(frames.count) frames, \(delays.count) delays")
        precondition(frames.allSatisfy { $0.count == width * height }, "a frame that is not \(width)x\(height)")
        self.width = width
        self.height = height
        self.frames = frames
        self.delays = delays.map { max(1, Self.milliseconds($0)) }
    }

    public var isAnimated: Bool { frames.count > 1 }

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

    /// Draws frame `index` fitted into the `cell`x`cell` square at (`x`, `y`), centred, each LED
    /// the average of the pixels it covers (a 16x16 or 32x32 icon shrinks without losing thin
    /// lines to sampling), at `level` of its brightness; clear pixels leave the LEDs as they were.
    func draw(frame index: Int, at x: Int, _ y: Int, cell: Int = 8, level: Double = 1, into target: inout Frame) {
        let scale = min(Double(cell) / Double(width), Double(cell) / Double(height))
        let fitted = (width: max(1, Int((Double(width) * scale).rounded())), height: max(1, Int((Double(height) * scale).rounded())))
        let left = x + (cell - fitted.width) / 2, top = y + (cell - fitted.height) / 2
        let pixels = frames[index]
        for row in 0..<fitted.height {
            let py = top + row
            guard py >= 0, py < target.height else { continue }
            let rows = row * height / fitted.height..<max(row * height / fitted.height + 1, (row + 1) * height / fitted.height)
            for column in 0..<fitted.width {
                let px = left + column
                guard px >= 0, px < target.width else { continue }
                let columns = column * width / fitted.width..<max(column * width / fitted.width + 1, (column + 1) * width / fitted.width)
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
                let count = rows.count * columns.count
                // Mostly clear: the LED stays as it was (an LED cannot be half there).
                guard sum.a * 2 >= count * 255 else { continue }
                // Premultiplied, so the average is the colour over black, as the LEDs show it.
                func channel(_ total: Int) -> UInt32 { UInt32(min(255, (Double(total) / Double(count) * level).rounded())) }
                target[px, py] = 0xFF00_0000 | channel(sum.r) << 16 | channel(sum.g) << 8 | channel(sum.b)
            }
        }
    }
}
