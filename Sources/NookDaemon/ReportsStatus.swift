import NookProtocol

/// A service that answers for its own members of `status` (Q12). The answer is the daemon's
/// core (display, home, engagement, connections) with each such service's part filled in, in
/// start order: a feature with something to report adds it in its own service.
protocol ReportsStatus: DaemonService {
    func report(into status: inout StatusAnswer) async
}
