import Foundation
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// Signals that reach nookd while it starts, before its signal service runs: nookd has taken
/// the display by then, so the default action (death) would leave the glass as it was.
@Suite("N1 N2 signals while nookd starts", .serialized, .ownThreads)
struct EarlySignalTests {
    /// Starts nookd on the mock display writing PNG frames, and returns once it has said its
    /// first line: it is in `main` and has chosen its display, and it is not listening yet.
    static func starting(_ scratch: Scratch, _ extra: [String] = []) throws -> DaemonProcess {
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--frames", scratch.path + "/frames"] + extra, waitUntilReady: false)
        let deadline = Date().addingTimeInterval(TestBounds.seconds(30))
        while daemon.log.isEmpty, daemon.process.isRunning, Date() < deadline { usleep(200) }
        return daemon
    }

    @Test func n2_aSigtermWhileNookdStartsStopsItCleanlyEveryTime() throws {
        // Twelve signals that came before the socket existed. A round whose signal came later
        // (the test process, slowed by a sanitizer, saw nookd's first line late) still has to
        // stop cleanly, and does not count; forty rounds with none early test nothing early.
        var early = 0
        for round in 1...40 where early < 12 {
            let scratch = Scratch()
            let daemon = try Self.starting(scratch)
            if !FileManager.default.fileExists(atPath: daemon.socket) { early += 1 }
            let (status, _) = daemon.stop()
            let log = daemon.log
            #expect(daemon.process.terminationReason == .exit && status == 0,
                    "round \(round): a normal stop's exit, not death by the signal (\(daemon.process.terminationReason.rawValue), \(status)): \(log)")
            #expect(log.contains("stopping: quiescing queues and restoring the display") && log.contains("nookd stopped"),
                    "round \(round): stopped as a running nookd stops: \(log)")
            #expect(!FileManager.default.fileExists(atPath: daemon.socket), "round \(round): the socket is removed")
            if daemon.process.terminationReason != .exit { return }
        }
        #expect(early > 0, "no round signalled nookd before its socket existed")
    }

    @Test func n1_aSighupWhileNookdStartsIsAReloadOnceItRuns() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[theme]\nappearance = \"dark\"\n")
        let daemon = try Self.starting(scratch, ["--config", config])
        _ = scratch.file("nook.toml", "[theme]\nappearance = \"light\"\n")
        kill(daemon.process.processIdentifier, SIGHUP)
        try daemon.waitForSocket()
        try eventually("the reload") { daemon.log.contains("SIGHUP: reloaded") }
        #expect((try daemon.request(.status))["display"]?["theme"] == .string("light"), "the file as it was at the signal")
        let log = daemon.log
        let ready = log.range(of: "nookd ready"), reloaded = log.range(of: "SIGHUP: reloaded")
        #expect(ready != nil && reloaded != nil && ready!.lowerBound < reloaded!.lowerBound, "reloaded once running: \(log)")
        #expect(daemon.stop().status == 0)
    }

    @Test func n1_n2_aSighupAndASigtermWhileNookdStartsStopItWithoutAReload() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[theme]\nappearance = \"dark\"\n")
        let daemon = try Self.starting(scratch, ["--config", config])
        kill(daemon.process.processIdentifier, SIGHUP)
        let (status, _) = daemon.stop()
        #expect(daemon.process.terminationReason == .exit && status == 0, "\(daemon.log)")
        #expect(daemon.log.contains("nookd stopped"))
        #expect(!daemon.log.contains("SIGHUP: reloaded"), "no reload of services on their way out: \(daemon.log)")
    }

    @Test func n2_twoStopSignalsWhileNookdStartsExitAtOnce() throws {
        let scratch = Scratch()
        let daemon = try Self.starting(scratch)
        kill(daemon.process.processIdentifier, SIGINT)
        kill(daemon.process.processIdentifier, SIGINT)
        daemon.process.waitForExit()
        #expect(daemon.process.terminationReason == .exit, "an exit, not death by the signal: \(daemon.log)")
        // The first may already have reached the signal service, which counts the second the same way.
        #expect(daemon.process.terminationStatus == 1 || daemon.log.contains("nookd stopped"), "\(daemon.log)")
    }
}
