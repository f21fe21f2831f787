#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookProtocol
import NookSystem

// N2's bound: nookd exits within 2 s of SIGTERM, even while a card slides in (it restores the
// display rather than finishing the slide). The end-to-end tests check that it does not wait
// out the slide; how long the exit takes is this figure, since a loaded machine stretches it.
extension DaemonFigures {
    /// SIGTERM to exit (reaped) of a release nookd caught in a 5 s slide-in, in milliseconds.
    func sigtermMidSlideExitMs(rounds count: Int = 5) async throws -> Spread {
        try await rounds(count) { try sigtermMidSlideExitRound() }
    }

    private func sigtermMidSlideExitRound() throws -> Double {
        let socket = scratch + "/nookd-stop.sock"
        let pid = try startDaemon(socket: socket)
        var exited = false
        defer { if !exited { stop(pid) } }
        let client = try NookClient(path: socket)
        client.readTimeout = .seconds(30)
        var sliding = NookActivity(title: "Sliding in", dwell: .seconds(60))
        sliding.transition = .seconds(5)
        _ = try client.request(Request(id: .number(1), operation: .enqueue(sliding, module: nil, wait: false)))
        var phase: JSONValue?
        for _ in 0..<1000 where phase != .string("animateIn") {
            phase = try client.request(Request(id: .number(2), operation: .status))["modules"]?.items.first?["phase"]
            if phase != .string("animateIn") { usleep(2_000) }
        }
        guard phase == .string("animateIn") else { throw BenchError("the card never started sliding in (phase \(String(describing: phase)))") }
        let start = ContinuousClock.now
        try System.kill(pid, SIGTERM)
        exited = reaped(pid, within: 30)
        guard exited else { throw BenchError("nookd did not exit within 30 s of SIGTERM") }
        let elapsed = ContinuousClock.now - start
        return elapsed.nookSeconds * 1000
    }
}
