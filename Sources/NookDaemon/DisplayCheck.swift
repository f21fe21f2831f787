import NookLogging
import NookActivities
import NookDisplay
import NookDRM
import NookRender

/// `nookd --test-display`: shows a test card on the configured display for a moment, then
/// restores it, and reports what the kernel says about both steps (D1). For a person setting up
/// a panel, and for the real-kernel tests of `restore()`.
public enum DisplayCheck {
    public static func run(_ config: DaemonConfig, logger: Logger, hold: Duration = .seconds(1)) async throws(DaemonError) -> String {
        let selection = DRMDisplay.Selection(card: config.display.card, connector: config.display.connector, mode: config.display.mode, pageFlip: config.display.pageFlip)
        let display: DRMDisplay
        do { display = try DRMDisplay(selection: selection) } catch { throw DaemonError("cannot drive the display through DRM: \(error)") }
        var lines = ["display: \(display.mode) through DRM (page flips: \(display.flipsPages ? "yes" : "no, dirty-fb"), panel orientation: \(display.panelOrientation))"]
        let shownAtStart = display.framebufferFoundAtStart
        let rotation = config.screen.rotation.then(display.panelOrientation)
        let card = CardRenderer(theme: config.screen.theme).render(
            NookActivity(title: "Nook display test", subtitle: "\(display.mode.size) · rotation \(rotation)", systemImage: "checkmark.circle", tint: .named(.green)),
            size: display.mode.size.rotated(rotation.inverse))
        do {
            try await display.present(card.frame.rotated(rotation))
            try await display.present(card.frame.rotated(rotation))
        } catch {
            display.restore()
            throw DaemonError("the test card could not be shown: \(error)")
        }
        let shownDuringTest = display.currentFramebuffer
        try? await Task.sleep(for: hold)
        display.restore()
        let shownAfterRestore = display.currentFramebuffer
        lines.append("framebuffer before nookd: \(shownAtStart), during the test: \(shownDuringTest), after restore: \(shownAfterRestore)")
        guard shownDuringTest != shownAtStart, shownDuringTest != 0 else {
            throw DaemonError((lines + ["the test card's framebuffer never reached the CRTC"]).joined(separator: "\n"))
        }
        guard shownAfterRestore == shownAtStart else {
            throw DaemonError((lines + ["restore did not put back the framebuffer found at start"]).joined(separator: "\n"))
        }
        lines.append("restored: the display shows what it showed before")
        return lines.joined(separator: "\n")
    }
}
