import NookActivities
import NookDisplay
import NookRender

/// nookd's queue and screen in process on a 1280x400 mock that marks each presented frame:
/// what the first-frame and update figures drive, without a socket in the way.
struct InProcessScreen {
    let presented = FirstFrameClock()
    let screen: NookScreen
    let queue: NookActivityQueue
    private let feeder: Task<Void, Never>

    init(prepare: (NookScreen) async -> Void = { _ in }) async {
        let clock = NookSystemClock()
        let display = MockDisplay(size: PixelSize(width: 1280, height: 400), clock: clock, keepFrames: 0) { [presented] _ in presented.mark() }
        screen = NookScreen(display: display, clock: clock)
        queue = NookActivityQueue(clock: clock)
        await queue.bind(to: NookSurfaceArbiter(foreground: "bench", clock: clock))
        feeder = Task { [screen, queue] in await screen.run(queue.events(where: NookScreen.draws)) }
        await prepare(screen)
        await screen.showHome()
    }

    func stop() { feeder.cancel() }
}
