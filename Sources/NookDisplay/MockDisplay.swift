import NookActivities
import NookSystem

/// A headless display (D3): records every presented frame with the time it was shown, paces
/// presents to its refresh rate on the injected clock, and hands each frame to an optional
/// sink (the daemon writes them as PNG files). Deterministic on a manual clock.
public final class MockDisplay: DisplayBackend {
    public struct RecordedFrame: Sendable {
        /// 0 for the first frame ever presented.
        public var index: Int
        public var at: NookInstant
        public var frame: Frame

        public init(index: Int, at: NookInstant, frame: Frame) { (self.index, self.at, self.frame) = (index, at, frame) }
    }

    private struct State {
        var recorded: [RecordedFrame] = []
        var presentedCount = 0
        var pacer: RefreshPacer
        var blanked = false
        var restored = false
    }

    public let mode: DisplayMode
    private let clock: any NookClock
    private let keepFrames: Int
    private let sink: (@Sendable (RecordedFrame) -> Void)?
    private let state: Locked<State>
    private let connection = Locked<[AsyncStream<Bool>.Continuation]>([])

    /// - Parameters:
    ///   - keepFrames: how many of the latest frames stay in memory (every one, by default).
    ///     0 keeps none: the daemon counts frames and hands them to its sink only, so a frame
    ///     buffer it reuses is never copied because the mock still holds it.
    ///   - sink: called with each frame as it is presented.
    public init(size: PixelSize, refreshHz: Double = 60, clock: any NookClock,
                keepFrames: Int = .max, sink: (@Sendable (RecordedFrame) -> Void)? = nil) {
        precondition(refreshHz > 0, "refreshHz must be positive")
        mode = DisplayMode(size: size, refreshHz: refreshHz, name: "mock")
        self.clock = clock
        self.keepFrames = max(0, keepFrames)
        self.sink = sink
        state = Locked(State(pacer: RefreshPacer(refreshHz: refreshHz)))
    }

    /// The frames still held, oldest first.
    public var frames: [RecordedFrame] { state.withLock { $0.recorded } }
    /// How many frames were ever presented.
    public var frameCount: Int { state.withLock { $0.presentedCount } }
    public var lastFrame: RecordedFrame? { state.withLock { $0.recorded.last } }
    public var isBlanked: Bool { state.withLock { $0.blanked } }
    public var wasRestored: Bool { state.withLock { $0.restored } }

    public func present(_ frame: Frame) async throws(DisplayError) {
        guard frame.size == mode.size else {
            throw DisplayError(operation: "present", detail: "frame is \(frame.size) but the mock display is \(mode.size)")
        }
        // Wait for the next vertical blank, as a page flip would.
        let flipAt = state.withLock { $0.pacer.slot(readyAt: clock.now) }
        do {
            try await clock.sleep(until: flipAt)
        } catch {
            throw DisplayError(operation: "present", detail: "cancelled while waiting for the vertical blank")
        }
        let record = state.withLock { state -> RecordedFrame in
            let record = RecordedFrame(index: state.presentedCount, at: clock.now, frame: frame)
            state.presentedCount += 1
            if keepFrames > 0 {
                state.recorded.append(record)
                if state.recorded.count > keepFrames { state.recorded.removeFirst(state.recorded.count - keepFrames) }
            }
            return record
        }
        sink?(record)
    }

    public func setBlanked(_ blanked: Bool) async throws(DisplayError) {
        state.withLock { $0.blanked = blanked }
    }

    public func restore() {
        state.withLock { $0.restored = true }
    }

    public func connectionChanges() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream<Bool>.makeStream()
        connection.withLock { $0.append(continuation) }
        return stream
    }

    /// How many ``connectionChanges()`` streams were handed out: a test waits for its relay to
    /// listen before it simulates an unplug.
    public var connectionListeners: Int { connection.withLock { $0.count } }

    /// Pretends the panel was unplugged (`false`) or plugged back in (`true`), for tests of Q15.
    public func simulateConnection(_ connected: Bool) {
        for continuation in connection.withLock({ $0 }) { continuation.yield(connected) }
    }
}
