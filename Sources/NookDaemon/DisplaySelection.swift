import NookLogging
import NookActivities
import NookDisplay
import NookDRM
import NookFramebuffer
import NookPixel

/// The one place the daemon picks a display backend (habit 5): everything after this sees
/// only `any DisplayBackend`.
enum DisplaySelection {
    /// D4: `auto` takes DRM when a card has a connected connector, else fbdev, else the mock,
    /// and says which (and why not the others) in the log.
    static func choose(_ config: DaemonConfig, clock: any NookClock, logger: Logger) throws(DaemonError)
        -> (display: any DisplayBackend, name: String, writer: FrameWriter?) {
        let selection = DRMDisplay.Selection(card: config.display.card, connector: config.display.connector, mode: config.display.mode, pageFlip: config.display.pageFlip)
        func drm() throws(DRMError) -> (display: any DisplayBackend, name: String, writer: FrameWriter?) {
            let display = try DRMDisplay(selection: selection, clock: clock)
            logger.notice("driving \(display.mode) through DRM", metadata: ["pageFlips": "\(display.flipsPages)"])
            return (display, "drm", nil)
        }
        func fbdev() throws(DisplayError) -> (display: any DisplayBackend, name: String, writer: FrameWriter?) {
            let display = try FramebufferDisplay(path: config.display.fbdev, clock: clock)
            logger.notice("driving \(display.mode) through fbdev (\(display.format.rawValue))")
            return (display, "fbdev", nil)
        }
        switch config.display.backend {
        case .drm:
            do { return try drm() } catch { throw DaemonError("cannot drive the display through DRM: \(error)") }
        case .fbdev:
            do { return try fbdev() } catch { throw DaemonError("cannot drive the display through fbdev: \(error)") }
        case .auto:
            do { return try drm() } catch { logger.notice("display auto: no usable DRM display (\(error))") }
            do { return try fbdev() } catch { logger.notice("display auto: no usable framebuffer (\(error)); using the mock display") }
        case .mock:
            break
        case .ledSPI, .ledI2C:
            return (try LEDSelection.choose(config, clock: clock, logger: logger), config.display.backend.rawValue, nil)
        case .ledMock:
            break
        }
        var writer: FrameWriter?
        if let directory = config.display.frames {
            // The LED mock's frames are drawn as the matrix looks: round LEDs on black.
            let picture: @Sendable (Frame) -> Frame
            if config.display.backend == .ledMock {
                picture = { frame in LEDMockImage.render(frame, cell: frame.height == 1 ? 12 : 16) }
            } else {
                picture = { frame in frame }
            }
            do { writer = try FrameWriter(directory: directory, limit: config.display.framesLimit, clock: clock, logger: logger, picture: picture) } catch { throw DaemonError("cannot use --frames \(directory): \(error)") }
            logger.notice("the mock display writes its frames as PNG files", metadata: ["directory": "\(directory)"])
        }
        var sink: (@Sendable (MockDisplay.RecordedFrame) -> Void)?
        if let writer { sink = { record in writer.offer(record) } }
        if config.display.backend == .ledMock {
            let mock = MockDisplay(size: config.display.led.size, refreshHz: min(60, config.display.refreshHz), clock: clock, keepFrames: 0, sink: sink)
            logger.notice("driving \(config.display.led.size) mock LEDs")
            return (mock, "led-mock", writer)
        }
        let mock = MockDisplay(size: config.display.mockSize, refreshHz: config.display.refreshHz, clock: clock, keepFrames: 0, sink: sink)
        return (mock, "mock", writer)
    }
}
