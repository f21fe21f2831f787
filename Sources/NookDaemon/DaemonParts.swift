/// nookd's services: ``order``, the one list that builds, starts, reloads and stops them, and
/// each by its type for the wiring.
struct DaemonParts: Sendable {
    /// The start order (the reverse is the stop order), the one list of the services: a service
    /// is one row here, built by its ``BuiltService/build(_:)`` from the services it needs.
    /// ``ServiceOrder`` refuses a list in which a service comes before one it needs. Where needs
    /// leave the order open, the list keeps what users see: the recall and the history before
    /// the journal restores a card, the first brightness before the home screen, the inputs
    /// after what they drive.
    static let order: [any BuiltService.Type] = [
        Service.Display.self,
        Service.StateFiles.self,
        Service.Signals.self,
        Service.Queues.self,
        Service.SystemdWatchdog.self,
        Service.Screen.self,
        Service.EventLog.self,
        Service.ActionCardTracking.self,
        Service.Recall.self,
        Service.Apps.self,
        Service.History.self,
        Service.Journal.self,
        Service.Brightness.self,
        Service.Escalation.self,
        Service.QuietHours.self,
        Service.HomeClock.self,
        Service.DisplayWatch.self,
        Service.Presence.self,
        Service.DisplayPower.self,
        Service.Sound.self,
        Service.Inputs.self,
        Service.Touch.self,
        Service.Ownership.self,
        Service.RequestSettings.self,
        Service.Socket.self,
    ]

    /// The services' types in start order, for what is decided without instances (a reload's
    /// outcome for each key, the order's check).
    static var startOrder: [any DaemonService.Type] { order.map { $0 } }

    /// Every service, in ``order``.
    let all: [any DaemonService]
    private let byType: [ObjectIdentifier: any DaemonService]

    /// Builds every service of ``order`` in `wiring` (those built before, as another's part,
    /// are taken as they are), keeping what each was given.
    init(_ wiring: ServiceWiring) throws(DaemonError) {
        // First, before the display is taken: a start the admin group refuses has nothing to
        // put back.
        let ownership = try wiring.part(Service.Ownership.self)
        var all: [any DaemonService] = []
        for type in Self.order { all.append(try wiring.part(type)) }
        self.all = all
        byType = Dictionary(uniqueKeysWithValues: all.map { (ObjectIdentifier(Swift.type(of: $0)), $0) })
        quiescing = all.compactMap { $0 as? any QuiescesAtStop }
        reportingStatus = all.compactMap { $0 as? any ReportsStatus }
        given = wiring.given
        (display, signals, queues, screen) = (try wiring.part(Service.Display.self), try wiring.part(Service.Signals.self),
                                              try wiring.part(Service.Queues.self), try wiring.part(Service.Screen.self))
        (recall, history, apps) = (try wiring.part(Service.Recall.self), try wiring.part(Service.History.self), try wiring.part(Service.Apps.self))
        (journal, brightness, quietHours, presence) = (try wiring.part(Service.Journal.self), try wiring.part(Service.Brightness.self),
                                                       try wiring.part(Service.QuietHours.self), try wiring.part(Service.Presence.self))
        (touch, socket, sound) = (try wiring.part(Service.Touch.self), try wiring.part(Service.Socket.self), try wiring.part(Service.Sound.self))
        displayPower = try wiring.part(Service.DisplayPower.self)
        self.ownership = ownership
    }

    /// The names of the services each service was built from, by the service's name.
    let given: [String: Set<String>]

    /// The service of that type; nil for a type that is not in ``order``.
    subscript<Part: DaemonService>(_ type: Part.Type) -> Part? { byType[ObjectIdentifier(type)] as? Part }

    // The services the daemon's own code reaches (requests, status, the run loop), kept typed
    // once here rather than looked up at each request.
    let display: Service.Display
    let signals: Service.Signals
    let queues: Service.Queues
    let screen: Service.Screen
    let recall: Service.Recall
    let apps: Service.Apps
    let history: Service.History
    let journal: Service.Journal
    let brightness: Service.Brightness
    let quietHours: Service.QuietHours
    let presence: Service.Presence
    let displayPower: Service.DisplayPower
    let touch: Service.Touch
    let sound: Service.Sound
    let ownership: Service.Ownership
    let socket: Service.Socket

    /// The services with cards on the glass, which quiesce at a stop before any service stops.
    let quiescing: [any QuiescesAtStop]

    /// The services that answer for their own part of `status`, in start order. Found once: a
    /// cast to a protocol is a lookup in the runtime's conformance cache, 3% of nookd's time
    /// answering `/healthz`'s status calls when it was made at each.
    let reportingStatus: [any ReportsStatus]

    /// Every service, in ``order``; throws if that order is refused, or if a service was given
    /// a part it does not declare (``ServiceOrder/checkGiven(_:given:)``).
    func inStartOrder() throws(DaemonError) -> [any DaemonService] {
        if let problem = ServiceOrder.check(Self.startOrder) { throw DaemonError("nookd's start order: \(problem)") }
        for type in Self.order {
            if let problem = ServiceOrder.checkGiven(type, given: given[type.name] ?? []) { throw DaemonError("nookd's services: \(problem)") }
        }
        return all
    }
}
