import NookLogging
import NookActivities
import NookInput
import NookProtocol

/// A service ``DaemonParts/order`` can build: from the daemon's shared pieces and the services
/// it needs, which ``ServiceWiring/part(_:)`` hands it as values (built first if they are not yet).
protocol BuiltService: DaemonService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Self
}

/// What nookd's services are built from: the pieces ``Daemon`` holds for every service (the
/// config at start, the arbiter, the engagement) and each service built so far, which it records
/// as given to the service being built (``given``): what ``ServiceOrder/checkGiven(_:given:)``
/// holds against each service's `needs` and `uses`. Used once, while
/// ``Daemon/init(config:configPath:overrides:logger:clock:)`` runs.
final class ServiceWiring {
    let config: DaemonConfig
    let clock: any NookClock
    let logger: Logger
    let engagement: NookEngagement
    /// Presses of the open and dismiss inputs, for `inputs` streams.
    let presses: InputBroadcast
    let arbiter: NookSurfaceArbiter
    let quiet: NookQuietHours
    let actionCards: ActionCards
    let menuOnGlance: Locked<Daemon.MenuClaim?>
    let state: Locked<Daemon.State>
    /// Set by ``inputRules()`` the first time it is asked.
    var builtInputRules: InputRules?

    /// Each service built so far, by its type.
    private var built: [ObjectIdentifier: any DaemonService] = [:]
    /// The services being built, innermost last: a part asked for is given to the last.
    private var building: [any DaemonService.Type] = []
    /// The names of the services each service's build asked for, by the service's name.
    private(set) var given: [String: Set<String>] = [:]

    init(config: DaemonConfig, clock: any NookClock, logger: Logger, engagement: NookEngagement, presses: InputBroadcast,
         arbiter: NookSurfaceArbiter, quiet: NookQuietHours, actionCards: ActionCards, menuOnGlance: Locked<Daemon.MenuClaim?>,
         state: Locked<Daemon.State>) {
        (self.config, self.clock, self.logger, self.engagement, self.presses) = (config, clock, logger, engagement, presses)
        (self.arbiter, self.quiet, self.actionCards, self.menuOnGlance, self.state) = (arbiter, quiet, actionCards, menuOnGlance, state)
    }

    /// The modules' queues, by module (the queues service's).
    var queues: [NookModuleID: NookActivityQueue] { get throws(DaemonError) { try part(Service.Queues.self).byModule } }
    /// The modules' queues in the modules' order.
    var queuesInOrder: [(NookModuleID, NookActivityQueue)] { get throws(DaemonError) { try part(Service.Queues.self).inOrder } }
    var moduleQueues: [NookActivityQueue] { get throws(DaemonError) { try queuesInOrder.map { $0.1 } } }
    /// What draws on the glass (the screen service's).
    var screen: DaemonScreen { get throws(DaemonError) { try part(Service.Screen.self).screen } }

    /// The service of that type: built now if no service built it before (each is built once,
    /// whoever asks first; the start order is ``DaemonParts/order``'s, not this one). Asked
    /// while another service is built, it is recorded as given to that one.
    func part<Part: BuiltService>(_ type: Part.Type) throws(DaemonError) -> Part {
        if let builder = building.last { given[builder.name, default: []].insert(type.name) }
        if let service = built[ObjectIdentifier(type)] as? Part { return service }
        building.append(type)
        defer { building.removeLast() }
        let service = try Part.build(self)
        built[ObjectIdentifier(type)] = service
        return service
    }
}
