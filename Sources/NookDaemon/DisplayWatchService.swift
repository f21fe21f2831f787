import NookLogging
import NookActivities
import NookDisplay
import NookRender

extension Service {
    /// Q15: an unplugged panel suspends every queue (nothing is shown to nobody); plugged back
    /// in, they resume and the card that was cut off is shown again.
    final class DisplayWatch: DaemonService {
        typealias Section = NoSection
        static let name = "display watch"
        static var needs: [any DaemonService.Type] { [Display.self, Queues.self, Screen.self, Recall.self, Apps.self, Brightness.self] }

        private let display: any DisplayBackend
        private let queues: [NookActivityQueue]
        private let screen: DaemonScreen
        private let brightness: Brightness
        private let logger: Logger
        private let stops = StopActions()

        init(display: any DisplayBackend, queues: [NookActivityQueue], screen: DaemonScreen, brightness: Brightness, logger: Logger) {
            (self.display, self.queues, self.screen, self.brightness, self.logger) = (display, queues, screen, brightness, logger)
        }

        func start(_ section: NoSection) async throws(DaemonError) {
            let watch = Task { [display, queues, logger, screen, brightness] in
                await DisplayAvailability.relay(from: display, to: queues, screen: screen, logger: logger,
                                                brightness: { brightness.current.withLock { $0 } })
            }
            stops.add { watch.cancel() }
        }

        func stop() async { await stops.run() }
    }
}

extension Service.DisplayWatch: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.DisplayWatch {
        Service.DisplayWatch(display: try wiring.part(Service.Display.self).display,
                             queues: Array(try wiring.queues.values) + [try wiring.part(Service.Recall.self).recall.queue,
                                                                            try wiring.part(Service.Apps.self).rotation.queue], screen: try wiring.screen,
                             brightness: try wiring.part(Service.Brightness.self), logger: wiring.logger)
    }
}
