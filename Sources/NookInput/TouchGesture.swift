/// A point on the picture as it is drawn (logical pixels, origin top left, before the display's
/// rotation), after the panel's orientation, axis swap/inversion, calibration and rotation were
/// undone (T3): what a finger at that spot of the glass touches.
public struct TouchPoint: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { (self.x, self.y) = (x, y) }
    public var description: String { "(\(Int(x.rounded())), \(Int(y.rounded())))" }
}

/// What a touch panel's fingers mean (T2), in the order they happen: every gesture starts with
/// ``down`` and ends with ``up``, whatever comes between, so the queue is never left held.
public enum TouchGesture: Hashable, Sendable {
    /// The first finger touched: engagement starts (the queue yields, Q6).
    case down(TouchPoint)
    /// The finger moved sideways while down: the card follows by `dx` logical pixels.
    case drag(TouchPoint, dx: Double)
    /// Short and still: the open input (the card's default action, E3, or details).
    case tap(TouchPoint)
    /// A sideways swipe past the threshold: dismiss; `dx` keeps its sign (direction).
    case swipe(TouchPoint, dx: Double)
    /// Held still past the long-press time: recall on an idle display (U5), snooze on a card.
    case longPress(TouchPoint)
    /// The last finger lifted, or the gesture was abandoned (`cancelled`: the device vanished,
    /// a flood of events, impossible coordinates): engagement ends.
    case up(cancelled: Bool)

    /// The word `nookctl status` shows for the last gesture.
    public var name: String {
        switch self {
        case .down: "down"
        case .drag: "drag"
        case .tap: "tap"
        case .swipe: "swipe"
        case .longPress: "long-press"
        case .up(let cancelled): cancelled ? "cancelled" : "up"
        }
    }
}
