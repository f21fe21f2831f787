#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookDisplay
import NookSystem

/// Fault injection for the watchdog's tests (W1), configured by `debug.hang_display_file` and
/// off unless that key is set: once the file exists at a present, the file is removed (so the
/// nookd systemd starts next does not hang again) and from then on no present returns, as on a
/// display whose page flips stopped completing. (Hanging only the one present that found the
/// file hung the home clock's task when the minute turned then, not the loop drawing cards.)
/// Everything else passes through to `inner`.
final class HangingDisplay: DisplayBackend {
    let inner: any DisplayBackend
    let triggerPath: String
    let warn: @Sendable (String) -> Void

    init(_ inner: any DisplayBackend, triggerPath: String, warn: @escaping @Sendable (String) -> Void) {
        self.inner = inner
        self.triggerPath = triggerPath
        self.warn = warn
    }

    var mode: DisplayMode { inner.mode }
    var panelOrientation: Rotation { inner.panelOrientation }
    var pageFlips: PageFlipCounts? { inner.pageFlips }
    func connectionChanges() -> AsyncStream<Bool> { inner.connectionChanges() }
    func setBlanked(_ blanked: Bool) async throws(DisplayError) { try await inner.setBlanked(blanked) }
    func restore() { inner.restore() }

    private let hung = Locked(false)

    func present(_ frame: Frame) async throws(DisplayError) {
        if hung.withLock({ $0 }) {
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            return
        }
        if fileExists(triggerPath) {
            hung.withLock { $0 = true }
            do throws(SystemCallError) {
                try System.unlink(triggerPath)
            } catch {
                warn("debug.hang_display_file: \(error) (\(triggerPath)); hanging anyway")
            }
            warn("debug.hang_display_file: \(triggerPath) appeared; the display loop now hangs (fault injection)")
            // Cancellation (nookd stopping) is the only way out, as for a flip that never comes.
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(3600))
            }
            return
        }
        try await inner.present(frame)
    }
}
