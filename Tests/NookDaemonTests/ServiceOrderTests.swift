import NookActivities
@testable import NookDaemon
import NookLogging
import NookTestTraits
import Testing

/// nookd's services start in the order of one list, and each names the services it needs.
@Suite("N2 services start after the services they need", .ownThreads)
struct ServiceOrderTests {
    @Test func n2_nookdsStartOrderPutsEveryServiceAfterEveryServiceItNeeds() {
        let order = DaemonParts.startOrder
        #expect(ServiceOrder.check(order) == nil, "\(ServiceOrder.check(order) ?? "")")
        for (index, service) in order.enumerated() {
            let before = Set(order[..<index].map { $0.name })
            for need in service.needs.map({ $0.name }) {
                #expect(before.contains(need), "\(service.name) starts before \(need), which it needs")
            }
        }
    }

    @Test func n2_aListInWhichAServiceComesBeforeOneItNeedsIsRefused() {
        var order = DaemonParts.startOrder
        let journal = order.firstIndex { $0.name == "journal" }!
        let history = order.firstIndex { $0.name == "history" }!
        order.swapAt(journal, history)
        #expect(ServiceOrder.check(order) == "service journal would start before history, which it needs")
        let socketLast = DaemonParts.startOrder.filter { $0.name != "socket" }
        #expect(ServiceOrder.check([Service.Socket.self] + socketLast)?.hasPrefix("service socket would start before") == true)
    }

    @Test func n2_aListWithoutAServiceSomeServiceNeedsOrWithOneTwiceIsRefused() {
        let withoutRecall = DaemonParts.startOrder.filter { $0.name != "recall" }
        #expect(ServiceOrder.check(withoutRecall)?.contains("needs recall, which is not in the list") == true)
        #expect(ServiceOrder.check(DaemonParts.startOrder + [Service.Display.self]) == "service display is listed twice")
    }

    @Test func n2_theDaemonsServicesAreAllInTheStartOrder() {
        let names = Set(DaemonParts.startOrder.map { $0.name })
        for name in ["journal", "history", "recall", "brightness", "presence", "quiet hours", "escalation", "watchdog", "socket", "screen"] {
            #expect(names.contains(name), "\(name)")
        }
        #expect(names.count == DaemonParts.startOrder.count, "no two services share a name")
    }

    /// The one list builds every service once: a service built early, as another's need (the
    /// journal for the state files, the ownership for the queues), is the instance the list
    /// starts, and the daemon's typed handles are those same instances.
    @Test func n2_theListBuildsEachServiceOnceAndStartsTheInstancesTheOthersWereGiven() async throws {
        var config = DaemonConfig(socketPath: "/tmp/nook-order-never-served.sock")
        config.display.backend = .mock
        let daemon = try Daemon(config: config, configPath: nil, logger: Logger(label: "test"))
        let services = try daemon.parts.inStartOrder()
        let names = DaemonParts.startOrder.map { $0.name }
        #expect(services.map { type(of: $0).name } == names)
        #expect(Set(services.map { ObjectIdentifier($0) }).count == DaemonParts.order.count, "each built once")
        let started = Set(services.map { ObjectIdentifier($0) })
        #expect(daemon.parts.journal === daemon.parts[Service.Journal.self])
        #expect(started.contains(ObjectIdentifier(daemon.parts.ownership)), "the ownership the queues were given is started")
        #expect(started.contains(ObjectIdentifier(daemon.parts.history)) && started.contains(ObjectIdentifier(daemon.parts.journal)),
                "the history and journal the state files were given are started")
        await daemon.parts.display.stop()
    }
}
