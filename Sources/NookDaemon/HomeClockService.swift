import NookLogging
import NookActivities
import NookDisplay
import NookRender

extension Service {
    /// The home screen and its clock, once the journal's cards are back; an idle display keeps
    /// home only: the spare frames of the last card go after 10 s.
    final class HomeClock: DaemonService {
        typealias Section = NoSection
        static let name = "home clock"
        static var needs: [any DaemonService.Type] { [Screen.self, Journal.self] }

        private let screen: DaemonScreen
        private let stops = StopActions()

        init(screen: DaemonScreen) { self.screen = screen }

        func start(_ section: NoSection) async throws(DaemonError) {
            await screen.releaseFrames(after: .seconds(10))
            await screen.showHome()
            let clockTask = Task { [screen] in await screen.runClock() }
            stops.add { clockTask.cancel() }
        }

        func stop() async { await stops.run() }
    }
}

extension Service.HomeClock: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.HomeClock {
        Service.HomeClock(screen: try wiring.screen)
    }
}
