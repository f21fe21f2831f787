/// nookd's services, each by its type for the wiring, and their start order.
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

    /// The start order (the reverse is the stop order); ``ServiceOrder`` refuses a list in
    /// which a service comes before one it needs. Where needs leave the order open, the list
    /// keeps what users see: the recall and the history before the journal restores a card,
    /// the first brightness before the home screen, the inputs after what they drive.
    static var startOrder: [any DaemonService.Type] {
        [Service.Display.self, Service.StateFiles.self, Service.Signals.self, Service.Queues.self, Service.SystemdWatchdog.self,
         Service.Screen.self, Service.EventLog.self, Service.ActionCardTracking.self, Service.Recall.self, Service.History.self,
         Service.Journal.self, Service.Brightness.self, Service.Escalation.self, Service.QuietHours.self, Service.HomeClock.self,
         Service.DisplayWatch.self, Service.Presence.self, Service.Inputs.self, Service.Touch.self, Service.Ownership.self, Service.RequestSettings.self,
         Service.Socket.self]
    }

    private var all: [any DaemonService] {
        [display, stateFiles, signals, queues, watchdog, screen, eventLog, actionCards, recall, history, journal, brightness, escalation,
         quietHours, homeClock, displayWatch, presence, inputs, touch, ownership, requests, socket]
    }

    /// The services that answer for their own part of `status`, in start order.
    var reportingStatus: [any ReportsStatus] { all.compactMap { $0 as? any ReportsStatus } }

    /// Every service, in ``startOrder``; throws if that order is refused or a service in it
    /// has no instance here.
    func inStartOrder() throws(DaemonError) -> [any DaemonService] {
        if let problem = ServiceOrder.check(Self.startOrder) { throw DaemonError("nookd's start order: \(problem)") }
        let all = self.all
        var ordered: [any DaemonService] = []
        for type in Self.startOrder {
            guard let service = all.first(where: { ObjectIdentifier(Swift.type(of: $0)) == ObjectIdentifier(type) }) else {
                throw DaemonError("nookd's start order: service \(type.name) has no instance")
            }
            ordered.append(service)
        }
        return ordered
    }
}
