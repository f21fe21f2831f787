import NookActivities
import NookSystem

/// What a display shows: its size in pixels as the panel scans out, and its refresh rate.
public struct DisplayMode: Hashable, Sendable, CustomStringConvertible {
    public var size: PixelSize
    public var refreshHz: Double
    /// A human name: the connector (`HDMI-A-1`), the fbdev path, or `mock`.
    public var name: String

    public init(size: PixelSize, refreshHz: Double, name: String) {
        self.size = size
        self.refreshHz = refreshHz
        self.name = name
    }

    public var description: String { "\(name) \(size)@\(refreshHz)Hz" }
}

/// A failure of a display backend, naming the operation and, for system calls, the errno.
public struct DisplayError: Error, Hashable, Sendable, CustomStringConvertible {
    public var operation: String
    public var errno: Errno?
    public var detail: String

    public init(operation: String, errno: Errno? = nil, detail: String) {
        self.operation = operation
        self.errno = errno
        self.detail = detail
    }

    /// A failed system call, with advice a person can act on (or none).
    public init(_ failure: SystemCallError, advice: String = "") {
        operation = failure.call + (failure.subject.map { " \($0)" } ?? "")
        errno = failure.errno
        detail = advice
    }

    public var description: String {
        if let errno {
            let failed = SystemCallError(operation, errno: errno).description
            return detail.isEmpty ? failed : failed + "; " + detail
        }
        return "\(operation): \(detail)"
    }
}

/// One way of putting frames on a panel: DRM/KMS, fbdev, or the mock (D1–D4). The renderer
/// draws the same frames for all of them; only this protocol differs.
public protocol DisplayBackend: AnyObject, Sendable {
    /// The physical mode frames must match (rotation has already been applied to them).
    var mode: DisplayMode { get }
    /// Puts `frame` on the glass and returns when it is there (after the flip, on real
    /// hardware): callers pace animations by awaiting it.
    func present(_ frame: Frame) async throws(DisplayError)
    /// Turns the panel's output off (`true`) or on again, for idle blanking.
    func setBlanked(_ blanked: Bool) async throws(DisplayError)
    /// Gives the display back to whatever showed it before (restores the saved mode).
    func restore()
    /// Whether anyone can see the display, each time it changes (Q15): the panel unplugged or
    /// plugged back in. Displays that cannot tell never yield anything.
    func connectionChanges() -> AsyncStream<Bool>
    /// The clockwise turn the panel itself asks for (DRM's `panel orientation` connector
    /// property, R6), applied after the configured rotation. `.none` where there is none.
    var panelOrientation: Rotation { get }
    /// How presents were paced, where the backend flips pages (R5); nil elsewhere.
    var pageFlips: PageFlipCounts? { get }
}

extension DisplayBackend {
    public func connectionChanges() -> AsyncStream<Bool> {
        AsyncStream { _ in }
    }

    public var panelOrientation: Rotation { .none }
    public var pageFlips: PageFlipCounts? { nil }
}

/// Page flips since start: each present is a flip requested with an event and waited for.
public struct PageFlipCounts: Hashable, Sendable {
    public var requested = 0
    /// Flip events received: the frame reached the screen at vblank (or, on virtual GPUs,
    /// when the host took it).
    public var completed = 0
    /// Waits that gave up after 100 ms without the event.
    public var timedOut = 0

    public init(requested: Int = 0, completed: Int = 0, timedOut: Int = 0) {
        (self.requested, self.completed, self.timedOut) = (requested, completed, timedOut)
    }
}
