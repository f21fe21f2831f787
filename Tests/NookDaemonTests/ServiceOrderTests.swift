@testable import NookDaemon
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
}
