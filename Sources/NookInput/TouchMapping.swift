/// One absolute axis as the device describes it (`EVIOCGABS`): the range its values span.
public struct TouchAxisRange: Hashable, Sendable {
    public var minimum: Int32
    public var maximum: Int32
    public init(minimum: Int32, maximum: Int32) { (self.minimum, self.maximum) = (minimum, maximum) }
}

/// From a controller's raw axis values to the point of the picture under the finger (T3).
///
/// In order: each axis normalised to 0...1 over the device's range; the calibration matrix
/// (libinput's: `x' = a·x + b·y + c`, `y' = d·x + e·y + f`, on those normalised values, as a
/// udev `LIBINPUT_CALIBRATION_MATRIX` is written for libinput); the axis swap, then the
/// inversions; that is the point on the glass as the display scans it out. Last the picture's
/// turn is undone: the display turns the picture clockwise by `quarterTurns` (R6's rotation)
/// and then by `panelQuarterTurns` (the connector's panel orientation), as nookd does.
public struct TouchMapping: Sendable, Equatable {
    public enum Outcome: Equatable, Sendable {
        case inside(TouchPoint)
        /// A little outside the axis range (controllers report a few units past their edges):
        /// moved onto the edge.
        case clamped(TouchPoint)
        /// Far outside the range: not a place on this glass.
        case impossible
    }

    public var x: TouchAxisRange
    public var y: TouchAxisRange
    public var calibration: [Double]
    public var swapAxes: Bool
    public var invertX: Bool
    public var invertY: Bool
    /// The picture as drawn, before it is turned, in logical pixels.
    public var pictureWidth: Double
    public var pictureHeight: Double
    /// The picture's total clockwise turn onto the glass, in quarter turns (0...3).
    public var turns: Int
    /// How far past the range (as a fraction of it) a value is clamped rather than impossible.
    public static let tolerance = 0.10

    public static let identity: [Double] = [1, 0, 0, 0, 1, 0]

    public init(x: TouchAxisRange, y: TouchAxisRange, settings: TouchSettings, deviceCalibration: [Double]? = nil,
                picture: (width: Int, height: Int), quarterTurns: Int, panelQuarterTurns: Int = 0) {
        self.x = x
        self.y = y
        let matrix = settings.calibration ?? deviceCalibration
        calibration = matrix.flatMap { $0.count == 6 && $0.allSatisfy(\.isFinite) ? $0 : nil } ?? Self.identity
        swapAxes = settings.swapAxes
        invertX = settings.invertX
        invertY = settings.invertY
        pictureWidth = Double(max(1, picture.width))
        pictureHeight = Double(max(1, picture.height))
        turns = ((quarterTurns + panelQuarterTurns) % 4 + 4) % 4
    }

    /// The picture's point under raw axis values `rawX`, `rawY`.
    public func map(rawX: Int32, rawY: Int32) -> Outcome {
        let (nx, clampedX) = Self.normalised(rawX, x)
        let (ny, clampedY) = Self.normalised(rawY, y)
        guard let nx, let ny else { return .impossible }
        let c = calibration
        var u = c[0] * nx + c[1] * ny + c[2]
        var v = c[3] * nx + c[4] * ny + c[5]
        if swapAxes { swap(&u, &v) }
        if invertX { u = 1 - u }
        if invertY { v = 1 - v }
        // A calibration may move a point off the glass; the finger is still on it.
        let calibratedOff = u < 0 || u > 1 || v < 0 || v > 1
        u = min(1, max(0, u))
        v = min(1, max(0, v))
        let point = picturePoint(glassU: u, glassV: v)
        return clampedX || clampedY || calibratedOff ? .clamped(point) : .inside(point)
    }

    /// The point of the picture shown at (u, v) of the glass (0...1 each, as scanned out).
    public func picturePoint(glassU u: Double, glassV v: Double) -> TouchPoint {
        let w = pictureWidth, h = pictureHeight
        // The glass is the picture turned clockwise: h wide after an odd number of turns.
        switch turns {
        case 1:
            // Clockwise: picture (x, y) is drawn at glass (h - y, x).
            return TouchPoint(x: v * w, y: h - u * h)
        case 2:
            return TouchPoint(x: w - u * w, y: h - v * h)
        case 3:
            // Counter-clockwise: picture (x, y) is drawn at glass (y, w - x).
            return TouchPoint(x: w - v * w, y: u * h)
        default:
            return TouchPoint(x: u * w, y: v * h)
        }
    }

    /// `value` as 0...1 of `range`; nil when it is impossibly far outside; whether it was clamped.
    static func normalised(_ value: Int32, _ range: TouchAxisRange) -> (Double?, Bool) {
        let span = Double(range.maximum) - Double(range.minimum)
        guard span > 0 else { return (nil, false) }
        let fraction = (Double(value) - Double(range.minimum)) / span
        if fraction >= 0, fraction <= 1 { return (fraction, false) }
        if fraction < -tolerance || fraction > 1 + tolerance { return (nil, false) }
        return (min(1, max(0, fraction)), true)
    }
}
