import NookProtocol

/// A service that answers for its own members of `status` (Q12). The answer is the daemon's
/// core (display, home, engagement, connections) with each such service's part filled in, in
/// start order: a feature with something to report adds it in its own service.
protocol ReportsStatus: DaemonService {
    func report(into status: inout StatusAnswer) async
}

extension Service.Queues: ReportsStatus {
    /// `foreground` and each module's queue.
    func report(into status: inout StatusAnswer) async {
        status.foreground = arbiter.foregroundModule?.rawValue
        status.modules = []
        for (module, queue) in queues {
            let snapshot = await queue.snapshot()
            status.modules.append(StatusAnswer.Module(
                name: module.rawValue, current: snapshot.current, phase: snapshot.currentPhase,
                pending: snapshot.pending.count, capacity: snapshot.capacity, suspended: snapshot.isSuspended,
                displayAvailable: snapshot.isDisplayAvailable, parked: snapshot.parkReason?.description,
                blockedBy: snapshot.blockingActivity))
        }
    }
}

extension Service.Inputs: ReportsStatus {
    func report(into status: inout StatusAnswer) async { status.gpio = gpioStatus() }
}

extension Service.Presence: ReportsStatus {
    func report(into status: inout StatusAnswer) async { status.presence = await self.status() }
}

extension Service.Brightness: ReportsStatus {
    func report(into status: inout StatusAnswer) async { status.brightness = await current.withLock { $0 }?.status }
}

extension Service.Touch: ReportsStatus {
    func report(into status: inout StatusAnswer) async { status.touch = self.status() }
}
