/// nookd's services, each by its type for the wiring, and ``order``, the one list of them in start order.
struct DaemonParts: Sendable {
    let display: Service.Display
    let stateFiles: Service.StateFiles
    let signals: Service.Signals
    let queues: Service.Queues
    let watchdog: Service.SystemdWatchdog
    let screen: Service.Screen
    let eventLog: Service.EventLog
    let actionCards: Service.ActionCardTracking
    let recall: Service.Recall
    let apps: Service.Apps
    let history: Service.History
    let journal: Service.Journal
    let brightness: Service.Brightness
    let escalation: Service.Escalation
    let quietHours: Service.QuietHours
    let homeClock: Service.HomeClock
    let displayWatch: Service.DisplayWatch
    let presence: Service.Presence
    let inputs: Service.Inputs
    let touch: Service.Touch
    let ownership: Service.Ownership
    let requests: Service.RequestSettings
    let socket: Service.Socket

    /// The start order (the reverse is the stop order), the one list of the services: each by
    /// its part above. ``ServiceOrder`` refuses a list in which a service comes before one it
    /// needs. Where needs leave the order open, the list keeps what users see: the recall and
    /// the history before the journal restores a card, the first brightness before the home
    /// screen, the inputs after what they drive.
    static var order: [PartialKeyPath<DaemonParts>] {
        [\.display, \.stateFiles, \.signals, \.queues, \.watchdog, \.screen, \.eventLog, \.actionCards, \.recall, \.apps, \.history, \.journal,
         \.brightness, \.escalation, \.quietHours, \.homeClock, \.displayWatch, \.presence, \.inputs, \.touch, \.ownership, \.requests,
         \.socket]
    }

    /// The services' types in start order, for what is decided without instances (a reload's
    /// outcome for each key, the order's check).
    static var startOrder: [any DaemonService.Type] {
        order.map { type(of: $0).valueType as! any DaemonService.Type }
    }

    private var all: [any DaemonService] { Self.order.map { self[keyPath: $0] as! any DaemonService } }

    /// The services that answer for their own part of `status`, in start order.
    var reportingStatus: [any ReportsStatus] { all.compactMap { $0 as? any ReportsStatus } }

    /// Every service, in ``order``; throws if that order is refused or a part is left out of it
    /// (it would never start).
    func inStartOrder() throws(DaemonError) -> [any DaemonService] {
        if let problem = ServiceOrder.check(Self.startOrder) { throw DaemonError("nookd's start order: \(problem)") }
        let listed = Set(Self.startOrder.map { ObjectIdentifier($0) })
        for part in Mirror(reflecting: self).children {
            guard let service = part.value as? any DaemonService, listed.contains(ObjectIdentifier(Swift.type(of: service))) else {
                throw DaemonError("nookd's start order: part \(part.label ?? "?") is not in it")
            }
        }
        return all
    }
}
