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
/// config at start, the queues, the screen, the engagement) and each service built so far.
/// Used once, while ``Daemon/init(config:configPath:overrides:logger:clock:)`` runs.
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
    /// Set once the queues are made (they ask the ownership service whose senders share).
    var queues: [NookModuleID: NookActivityQueue] = [:]
    /// Set once the display is open (the screen draws on it).
    var screen: DaemonScreen!

    /// Set by ``inputRules()`` the first time it is asked.
    var builtInputRules: InputRules?

    /// Each service built so far, by its type.
    private var built: [ObjectIdentifier: any DaemonService] = [:]

    init(config: DaemonConfig, clock: any NookClock, logger: Logger, engagement: NookEngagement, presses: InputBroadcast,
         arbiter: NookSurfaceArbiter, quiet: NookQuietHours, actionCards: ActionCards, menuOnGlance: Locked<Daemon.MenuClaim?>,
         state: Locked<Daemon.State>) {
        (self.config, self.clock, self.logger, self.engagement, self.presses) = (config, clock, logger, engagement, presses)
        (self.arbiter, self.quiet, self.actionCards, self.menuOnGlance, self.state) = (arbiter, quiet, actionCards, menuOnGlance, state)
    }

    /// The modules' queues in the modules' order.
    var queuesInOrder: [(NookModuleID, NookActivityQueue)] { config.modules.map { ($0, queues[$0]!) } }
    var moduleQueues: [NookActivityQueue] { config.modules.map { queues[$0]! } }

    /// The service of that type: built now if no service built it before (each is built once,
    /// whoever asks first; the start order is ``DaemonParts/order``'s, not this one).
    func part<Part: BuiltService>(_ type: Part.Type) throws(DaemonError) -> Part {
        if let service = built[ObjectIdentifier(type)] as? Part { return service }
        let service = try Part.build(self)
        built[ObjectIdentifier(type)] = service
        return service
    }
}
