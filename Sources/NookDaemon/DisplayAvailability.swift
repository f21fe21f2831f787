import NookLogging
import NookActivities
import NookDisplay
import NookRender

/// Q15: relays the display's connection to every queue. Unplugged, each queue takes its card
/// off (it goes back to the head of the queue) and holds everything; plugged back in, they
/// drain again and the screen presents again what it shows (the panel lost it), dark if the
/// screen keeps it dark.
enum DisplayAvailability {
    /// `brightness` is asked for the brightness service as each return happens (Z2: the
    /// re-probed backlight gets its level again).
    static func relay(from display: any DisplayBackend, to queues: [NookActivityQueue], screen: DaemonScreen, logger: Logger,
                      brightness: @escaping @Sendable () -> BrightnessController? = { nil }) async {
        for await connected in display.connectionChanges() {
            logger.notice("\(connected ? "the display is back: resuming" : "the display is gone: holding every activity until it returns")")
            for queue in queues { await queue.setDisplayAvailable(connected) }
            if connected {
                await screen.displayReturned()
                await brightness()?.displayReturned()
            }
        }
    }
}
