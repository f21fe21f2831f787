import NookActivities
@testable import NookDaemon
import NookLogging
import NookTestTraits
import Testing

/// Every part of nookd is built by the one list of services (the display, the queues, the
/// screen and the ownership too), what each service is given is what it declares, and a stop
/// quiesces by the list.
@Suite("N2 every part of nookd is in the list of services", .ownThreads)
struct ServicePartsTests {
    static func daemon() throws -> Daemon {
        var config = DaemonConfig(socketPath: "/tmp/nook-parts-never-served.sock")
        config.display.backend = .mock
        config.journal.path = nil
        return try Daemon(config: config, configPath: nil, logger: Logger(label: "test"))
    }

    /// What the wiring recorded each build asking for is what each service names in `needs`
    /// or `uses`: the apps are given the journal, the recall the history, the queues the
    /// ownership, each declared.
    @Test func n2_eachServiceIsGivenOnlyWhatItNeedsOrUses() async throws {
        let daemon = try Self.daemon()
        let given = daemon.parts.given
        #expect(throws: Never.self) { _ = try daemon.parts.inStartOrder() }
        for service in DaemonParts.order {
            #expect(ServiceOrder.checkGiven(service, given: given[service.name] ?? []) == nil, "\(service.name)")
        }
        #expect(given["apps"]?.contains("journal") == true && given["recall"]?.contains("history") == true)
        #expect(given["queues"] == ["ownership"] && given["screen"] == ["display", "queues", "watchdog"])
        #expect(given["inputs"]?.isSuperset(of: ["recall", "apps"]) == true, "the input rules' parts")
        // A part taken and not declared, or declared and not taken, is named.
        #expect(ServiceOrder.checkGiven(Service.Apps.self, given: (given["apps"] ?? []).union(["touch"]))
                == "service apps is given touch but names it in neither needs nor uses")
        #expect(ServiceOrder.checkGiven(Service.Apps.self, given: (given["apps"] ?? []).subtracting(["journal"]))
                == "service apps uses journal but is not given it")
        await daemon.parts.display.stop()
    }

    /// A service it uses starts after it: one that starts before it is a need, and is said so.
    @Test func n2_aListInWhichAServiceStartsAfterOneItUsesIsRefused() {
        #expect(ServiceOrder.check([Service.Queues.self, Service.Ownership.self]) == nil)
        #expect(ServiceOrder.check([Service.Ownership.self, Service.Queues.self]) == "service queues uses ownership, which starts before it: name it in needs")
        #expect(ServiceOrder.check([Service.Queues.self]) == "service queues uses ownership, which is not in the list")
    }

    /// The daemon's queues, screen and live view are the services' own; the services with
    /// cards on the glass are the ones a stop quiesces.
    @Test func n2_theQueuesTheScreenAndTheDisplayAreServicesOfTheList() async throws {
        let daemon = try Self.daemon()
        let parts = daemon.parts
        #expect(parts.queues === parts[Service.Queues.self] && parts.screen === parts[Service.Screen.self])
        #expect(parts.display === parts[Service.Display.self] && parts.ownership === parts[Service.Ownership.self])
        #expect(parts.queues.inOrder.map(\.0) == daemon.modules)
        for module in daemon.modules { #expect(daemon.queues[module] === parts.queues.byModule[module]) }
        #expect(daemon.liveGlass === parts.screen.liveGlass)
        #expect(parts.quiescing.map { type(of: $0).name } == ["queues", "recall", "apps"])
        await parts.display.stop()
    }
}
