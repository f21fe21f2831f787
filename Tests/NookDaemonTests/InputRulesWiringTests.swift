import NookActivities
@testable import NookDaemon
import NookLogging
import NookTestTraits
import Testing

/// nookd builds its input rules once: the GPIO buttons, the touch panel and the socket's
/// `press` act by the same rules, with the same recall, action cards and apps (I1, T2, E3, A4).
@Suite("I1 T2 every way in acts by nookd's one set of input rules", .ownThreads)
struct InputRulesWiringTests {
    @Test func i1_t2_a4_theButtonsThePanelAndPressShareOneSetOfRulesWithTheApps() async throws {
        var config = DaemonConfig(socketPath: "/tmp/nook-rules-never-served.sock")
        config.display.backend = .mock
        config.journal.path = nil
        let daemon = try Daemon(config: config, configPath: nil, logger: Logger(label: "test"))
        let inputs = try #require(daemon.parts[Service.Inputs.self])
        let ways: [(String, InputRules)] = [("press", daemon.inputRules), ("gpio", inputs.rules), ("touch", daemon.parts.touch.actions.rules)]
        for (way, rules) in ways {
            #expect(rules.apps === daemon.apps, "\(way): the app rules (A4) are the running rotation's")
            #expect(rules.recall === daemon.recall, "\(way): the recall (U5) is the running one")
            #expect(rules.actionCards === daemon.actionCards, "\(way): the action cards (E3) are the tracked ones")
            #expect(rules.queues.map(ObjectIdentifier.init) == daemon.modules.map { ObjectIdentifier(daemon.queues[$0]!) }, "\(way): every module's queue")
        }
        await daemon.parts.display.stop()
    }
}
