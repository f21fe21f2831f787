import NookActivities

/// The indicator lights (M1) as they are drawn: where each sits on the glass, in what colour
/// at a given moment of its blink or fade, and when that colour next changes. Drawn over the
/// finished frame, so cards, apps and home content are all under them.
public enum IndicatorMarks {
    /// How the display shows a small mark.
    public enum Kind: Sendable, Equatable {
        /// An LED matrix: AWTRIX's own pixels at the right edge.
        case matrix
        /// A pixel panel: AWTRIX's pattern of pixels made squares scaled to the panel.
        case panel
        /// An LED strip: one LED each at the far end (the last three).
        case strip
    }

    /// One lit indicator: its colour and how it changes, from `since` (when it was set).
    public struct Light: Sendable, Equatable {
        public var color: UInt32
        /// On for this long, then off (black, as AWTRIX draws it) for as long.
        public var blink: Duration?
        /// One rise and fall of its brightness: `(sin(2πt/fade) + 1) / 2` of the colour, as AWTRIX.
        public var fade: Duration?
        public var since: NookInstant

        public init(color: UInt32, blink: Duration? = nil, fade: Duration? = nil, since: NookInstant) {
            (self.color, self.blink, self.fade, self.since) = (color, blink, fade, since)
        }

        public var animates: Bool { blink != nil || fade != nil }

        /// Its colour at `now` (`0xRRGGBB`).
        public func color(at now: NookInstant) -> UInt32 {
            let elapsed = max(.zero, now - since)
            if let blink, blink > .zero {
                return (elapsed.nanoseconds % (2 * blink.nanoseconds)) < blink.nanoseconds ? color : 0
            }
            if let fade, fade > .zero {
                // Read at the step it is in, so a frame drawn late between two steps draws the
                // step the redraw was due for.
                let step = Self.fadeStep(fade).nanoseconds
                let at = Double(elapsed.nanoseconds / step * step) / Double(fade.nanoseconds)
                let phase = (Self.sine(2 * Double.pi * at) + 1) / 2
                func scaled(_ shift: UInt32) -> UInt32 { UInt32((Double((color >> shift) & 0xFF) * phase).rounded()) << shift }
                return scaled(16) | scaled(8) | scaled(0)
            }
            return color
        }

        /// When its colour next changes after `now`; nil when it is steady.
        public func nextChange(after now: NookInstant) -> NookInstant? {
            let period: Duration
            if let blink, blink > .zero { period = blink } else if let fade, fade > .zero { period = Self.fadeStep(fade) } else { return nil }
            let elapsed = max(.zero, now - since).nanoseconds
            let steps = elapsed / period.nanoseconds + 1
            return since + .nanoseconds(steps * period.nanoseconds)
        }

        /// A fade's redraws: twenty a period, never closer than ``shortestStep``.
        static func fadeStep(_ fade: Duration) -> Duration { max(shortestStep, fade / 20) }

        /// sin(x) without Foundation: a Taylor series on x brought into [-π, π].
        static func sine(_ x: Double) -> Double {
            var x = x.truncatingRemainder(dividingBy: 2 * .pi)
            if x > .pi { x -= 2 * .pi } else if x < -.pi { x += 2 * .pi }
            var (term, sum) = (x, x)
            for n in stride(from: 3, through: 29, by: 2) {
                term *= -x * x / Double((n - 1) * n)
                sum += term
            }
            return sum
        }
    }

    /// The shortest time between two redraws for the indicators (a blink shorter than this is
    /// drawn at this): the glass is never redrawn faster for them.
    public static let shortestStep: Duration = .milliseconds(100)

    /// The shortest fade drawn (a shorter one is drawn at this): four steps, the fewest in which
    /// a rise and fall is seen. Sampled at ``shortestStep``, a fade of 200 ms or less would land
    /// every step where the sine crosses the middle, a steady half light redrawn for nothing.
    public static let shortestFade: Duration = shortestStep * 4

    /// A rectangle of the upright (drawn) frame.
    public struct Cell: Sendable, Equatable {
        public var x, y, width, height: Int
        public init(x: Int, y: Int, width: Int, height: Int) { (self.x, self.y, self.width, self.height) = (x, y, width, height) }

        func overlaps(_ other: Cell) -> Bool {
            x < other.x + other.width && other.x < x + width && y < other.y + other.height && other.y < y + height
        }
    }

    /// AWTRIX's pixels of each indicator on its 32x8 matrix, as (columns from the right edge,
    /// row, which edge the row counts from): 1 an L in the top right corner, 2 two pixels in
    /// the middle of the right edge, 3 an L in the bottom right corner.
    private static let pattern: [Int: [(dx: Int, dy: Int, from: Edge)]] = [
        1: [(0, 0, .top), (1, 0, .top), (0, 1, .top)],
        2: [(0, 0, .middle), (0, 1, .middle)],
        3: [(0, 0, .bottom), (0, 1, .bottom), (1, 0, .bottom)],
    ]

    private enum Edge { case top, middle, bottom }

    /// Where indicator `number` sits on an upright frame of `size`: its place less any part of a
    /// lower-numbered one's, so on a display too short for three places apart (a 28x3 LED SHIM)
    /// no pixel is two lights and what shows does not hang on the order they are kept in.
    /// Empty where the display has no place for it.
    public static func cells(of number: Int, kind: Kind, size: PixelSize) -> [Cell] {
        let taken = (1..<max(1, number)).flatMap { place(of: $0, kind: kind, size: size) }
        return place(of: number, kind: kind, size: size).filter { cell in !taken.contains { $0.overlaps(cell) } }
    }

    private static func place(of number: Int, kind: Kind, size: PixelSize) -> [Cell] {
        let (width, height) = (size.width, size.height)
        switch kind {
        case .strip:
            // One LED at the far end for each: 1 the last, 2 the one before, 3 before that.
            let length = max(width, height)
            guard length >= number else { return [] }
            let place = length - number
            return [width >= height ? Cell(x: place, y: 0, width: 1, height: 1) : Cell(x: 0, y: place, width: 1, height: 1)]
        case .matrix, .panel:
            // A panel's pixel is a square of 1/40 of its short side, with as much margin.
            let unit = kind == .matrix ? 1 : max(2, min(width, height) / 40)
            let margin = kind == .matrix ? 0 : unit
            return (pattern[number] ?? []).compactMap { place in
                let x = width - margin - (place.dx + 1) * unit
                let y = switch place.from {
                case .top: margin + place.dy * unit
                case .middle: height / 2 - unit + place.dy * unit
                case .bottom: height - margin - (place.dy + 1) * unit
                }
                guard x >= 0, y >= 0, x + unit <= width, y + unit <= height else { return nil }
                return Cell(x: x, y: y, width: unit, height: unit)
            }
        }
    }

    /// Draws the `lights` (by number) at `now` onto `frame`, which is the upright frame turned
    /// clockwise by `turned` (as the display is sent it): each mark lands where it sits on the
    /// upright glass.
    public static func draw(_ lights: [Int: Light], at now: NookInstant, on frame: inout Frame, turned: Rotation = .none, kind: Kind) {
        let upright = frame.size.rotated(turned.inverse)
        for (number, light) in lights.sorted(by: { $0.key < $1.key }) {
            let pixel = 0xFF00_0000 | light.color(at: now) & 0xFF_FFFF
            for cell in cells(of: number, kind: kind, size: upright) {
                fill(cell, upright: upright, turned: turned, with: pixel, on: &frame)
            }
        }
    }

    /// Fills the upright `cell` on the turned `frame` (Frame.rotate's mapping, point by point).
    private static func fill(_ cell: Cell, upright: PixelSize, turned: Rotation, with pixel: UInt32, on frame: inout Frame) {
        let (width, height, stride) = (upright.width, upright.height, frame.width)
        frame.pixels.withUnsafeMutableBufferPointer { pixels in
            for y in cell.y..<(cell.y + cell.height) {
                for x in cell.x..<(cell.x + cell.width) {
                    let (px, py) = switch turned {
                    case .none: (x, y)
                    case .quarter: (height - 1 - y, x)
                    case .half: (width - 1 - x, height - 1 - y)
                    case .threeQuarters: (y, width - 1 - x)
                    }
                    pixels[py * stride + px] = pixel
                }
            }
        }
    }
}

extension Duration {
    /// Whole nanoseconds (the indicators' periods are milliseconds to a minute).
    fileprivate var nanoseconds: Int64 {
        let parts = components
        return parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000
    }
}
