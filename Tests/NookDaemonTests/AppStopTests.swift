import NookActivities
@testable import NookDaemon
import NookLogging
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// N2 with apps, in-process on the mock display: a stop halts the rotation and quiesces its
/// queue with the others, so the app card on the glass leaves it through the normal end path
/// and no turn's timer goes on turning the rotation while the services stop.
@Suite("A2 N2 a stop and the rotation", .serialized, .ownThreads)
struct AppStopTests {
    @Test func a2_n2_aStopHaltsTheRotationAndTakesTheAppOffTheGlass() async throws {
        let scratch = Scratch()
        var config = DaemonConfig(socketPath: scratch.path + "/nook.sock")
        config.display.backend = .mock
        config.journal.path = nil
        config.apps.duration = .seconds(3600)
        let lines = Locked<[String]>([])
        let daemon = try Daemon(config: config, configPath: nil, logger: Logger(label: "test", factory: { _ in KeptLog(lines: lines) }))
        let run = Task.onOwnThreads { try await daemon.run(handlingSignals: false) }
        // Once nookd serves (its services started, the rotation bound to the glass), as a
        // client's app would come; before that, a turn has no display loop to take it.
        #expect(try await settles { (try? NookClient(path: scratch.path + "/nook.sock")) != nil }, "nookd serving")
        try daemon.apps.set(NookApp(name: "a", content: .text("App A")))
        #expect(daemon.apps.move(by: 1).turn == "a")
        #expect(try await settles { await daemon.apps.queue.current?.title == "App A" }, "app a on the glass")
        #expect(daemon.apps.waiting, "its turn's timer is set")

        daemon.requestStop()
        try await run.value
        // The card slides out within N2's bound; on a machine too loaded for that, nookd gives
        // up on the slide, says so and restores the display: a stop never waits past the bound.
        let gaveUp = lines.withLock { $0.contains { $0.contains("did not quiesce within") } }
        let left = await daemon.apps.queue.current == nil
        #expect(gaveUp || left, "the app card left the glass with the other queues' cards")
        #expect(await daemon.apps.queue.isSuspended, "its queue was quiesced: nothing more drains onto the glass")
        #expect(!daemon.apps.waiting, "no turn's timer outlives the stop")
        #expect(daemon.apps.count == 1, "the app itself is kept")
    }

    /// What nookd logged, kept for the test to read.
    struct KeptLog: LogHandler {
        let lines: Locked<[String]>
        var logLevel: Logger.Level = .info
        func log(event: LogEvent) {
            lines.withLock { $0.append("\(event.level) \(event.message)") }
        }
    }
}
