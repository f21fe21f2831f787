import NookActivities
import NookDisplay

/// An LED matrix or strip behind the same seam as every panel (L1, L2, L5): presents are
/// paced on the injected clock at the rate the bus carries; `restore()` (stop, SIGTERM) and
/// blanking turn every LED off; a bus error reports the display gone (Q15) and a probe brings
/// it back once the chip answers again.
public final class LEDDisplay: DisplayBackend {
    private struct State {
        var driver: any LEDDriver
        var pacer: RefreshPacer
        var lastFrame: Frame?
        var connected = true
        var blanked = false
        /// After `restore()` nothing lights the LEDs again: an animation frame still on its
        /// way when nookd stops must not undo the clear.
        var restored = false
        var presented = 0
    }

    public let mode: DisplayMode
    private let clock: any NookClock
    private let state: Locked<State>
    private let watchers = Locked<[AsyncStream<Bool>.Continuation]>([])

    public init(driver: sending any LEDDriver, clock: any NookClock) {
        mode = DisplayMode(size: driver.size, refreshHz: driver.maximumFrameRate, name: driver.name)
        self.clock = clock
        state = Locked(State(driver: driver, pacer: RefreshPacer(refreshHz: driver.maximumFrameRate)))
    }

    /// Frames that reached the LEDs.
    public var presentedCount: Int { state.withLock { $0.presented } }

    public func present(_ frame: Frame) async throws(DisplayError) {
        guard frame.size == mode.size else {
            throw DisplayError(operation: "present", detail: "frame is \(frame.size) but the LEDs are \(mode.size)")
        }
        let slot = state.withLock { $0.pacer.slot(readyAt: clock.now) }
        do { try await clock.sleep(until: slot) } catch {
            throw DisplayError(operation: "present", detail: "cancelled while waiting for the LEDs' next frame slot")
        }
        let failure = state.withLock { state -> LEDError? in
            state.lastFrame = frame
            guard !state.blanked, !state.restored else { return nil }
            do throws(LEDError) {
                try state.driver.show(frame)
                state.presented += 1
                return nil
            } catch {
                return error
            }
        }
        if let failure {
            lost()
            throw DisplayError(operation: "present", detail: "\(mode.name): \(failure)")
        }
    }

    public func setBlanked(_ blanked: Bool) async throws(DisplayError) {
        let failure = state.withLock { state -> LEDError? in
            state.blanked = blanked
            do throws(LEDError) {
                guard !state.restored else { return nil }
                if blanked { try state.driver.clear() } else if let frame = state.lastFrame { try state.driver.show(frame) }
                return nil
            } catch { return error }
        }
        if let failure { throw DisplayError(operation: blanked ? "blank" : "unblank", detail: "\(mode.name): \(failure)") }
    }

    /// Every LED off: an LED left lit after nookd stops would stay lit until power is cut.
    public func restore() {
        state.withLock { state in
            try? state.driver.clear()
            state.lastFrame = nil
            state.restored = true
        }
    }

    public func connectionChanges() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream<Bool>.makeStream()
        watchers.withLock { $0.append(continuation) }
        return stream
    }

    /// A failed write: the chip is gone (unplugged, bus error). Tell the daemon once, then try
    /// to clear the LEDs every second until that works, and tell it they are back.
    private func lost() {
        let wasConnected = state.withLock { state in
            defer { state.connected = false }
            return state.connected
        }
        guard wasConnected else { return }
        for watcher in watchers.withLock({ $0 }) { watcher.yield(false) }
        Task { [clock, weak self] in
            while true {
                do { try await clock.sleep(until: clock.now + .seconds(1)) } catch { return }
                guard let self else { return }
                if self.probe() {
                    for watcher in self.watchers.withLock({ $0 }) { watcher.yield(true) }
                    return
                }
            }
        }
    }

    private func probe() -> Bool {
        state.withLock { state in
            do throws(LEDError) {
                try state.driver.clear()
                state.connected = true
                return true
            } catch { return false }
        }
    }
}
