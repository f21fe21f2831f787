import NookActivities
import NookDisplay
import NookSystem

/// Z2 without a backlight: the panel's brightness made by scaling every pixel of the frame on
/// its way to the display (a panel that has no backlight device, an HDMI monitor, LEDs). The
/// screen draws full-brightness frames as always; only what reaches the glass is scaled, so a
/// snapshot or a golden test sees the card as drawn. At full level frames pass untouched and
/// nothing is kept or copied (a kept reference would make the screen's next frame a copy).
///
/// A level change asks the screen to present what it shows again (``redraw``): home content is
/// not redrawn for a fade, so without it a fade would only show at the next minute.
final class DimmingDisplay: DisplayBackend {
    let inner: any DisplayBackend
    /// Levels are out of ``maximum``; `maximum` passes frames untouched.
    static let maximum = 255

    private let current = Locked(DimmingDisplay.maximum)
    private let redrawAction = Locked<KeptClosure<@Sendable () async -> Void>?>(nil)

    init(_ inner: any DisplayBackend) { self.inner = inner }

    var mode: DisplayMode { inner.mode }
    var panelOrientation: Rotation { inner.panelOrientation }
    var pageFlips: PageFlipCounts? { inner.pageFlips }
    func connectionChanges() -> AsyncStream<Bool> { inner.connectionChanges() }
    func setBlanked(_ blanked: Bool) async throws(DisplayError) { try await inner.setBlanked(blanked) }
    func restore() { inner.restore() }

    var level: Int { current.withLock { $0 } }

    /// What presents the screen's current frame again (the daemon's screen).
    func redraw(with action: @escaping @Sendable () async -> Void) { redrawAction.withLock { $0 = KeptClosure(action) } }

    func present(_ frame: Frame) async throws(DisplayError) {
        let level = current.withLock { $0 }
        try await inner.present(level == Self.maximum ? frame : Self.scaled(frame, level: level))
    }

    /// Sets the level and has the screen show its frame at it.
    func set(_ level: Int) async {
        let level = max(0, min(Self.maximum, level))
        let changed = current.withLock { current in
            defer { current = level }
            return current != level
        }
        guard changed, let redraw = redrawAction.withLock({ $0?.call }) else { return }
        await redraw()
    }

    /// Each colour channel times level/255, alpha kept.
    static func scaled(_ frame: Frame, level: Int) -> Frame {
        let factor = UInt32(level) * 257 + 1  // x*factor >> 16 ≈ x*level/255, exact at 0 and 255
        var pixels = frame.pixels
        pixels.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices {
                let pixel = buffer[index]
                let red = ((pixel >> 16 & 0xFF) * factor) >> 16
                let green = ((pixel >> 8 & 0xFF) * factor) >> 16
                let blue = ((pixel & 0xFF) * factor) >> 16
                buffer[index] = (pixel & 0xFF00_0000) | red << 16 | green << 8 | blue
            }
        }
        return Frame(width: frame.width, height: frame.height, pixels: pixels)
    }
}

/// Where ``BrightnessController`` puts its levels: the kernel's backlight, or the frames' pixels.
protocol BrightnessOutput: Sendable {
    /// The highest level; levels run from 0.
    var maximum: Int { get }
    /// For logs and warnings.
    var name: String { get }
    func apply(level: Int) async throws(DaemonError)
}

extension Backlight: BrightnessOutput {
    var name: String { directory + "/brightness" }

    func apply(level: Int) async throws(DaemonError) {
        do { try set(level) } catch { throw DaemonError("\(error) (\(name))") }
    }
}

extension DimmingDisplay: BrightnessOutput {
    var maximum: Int { Self.maximum }
    var name: String { "the drawn frames" }

    func apply(level: Int) async throws(DaemonError) { await set(level) }
}
