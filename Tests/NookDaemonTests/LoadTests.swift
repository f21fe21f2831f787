import Foundation
import NookActivities
import NookProtocol
import Synchronization
import Testing

@Suite("Q16 C3 load: many clients at once, every activity accounted for", .serialized)
struct LoadTests {
    @Test func q16_64ConcurrentClientsLoseNothingAndEveryActivityEndsExactlyOnce() throws {
        let daemon = try DaemonProcess()
        let socket = daemon.socket
        // Every lifecycle event, from before the first enqueue.
        let events = Mutex<[String: [String]]>([:])
        let watchingStarted = DispatchSemaphore(value: 0)
        let watching = Thread {
            guard let watcher = try? NookClient(path: socket) else { _ = watchingStarted.signal(); return }
            watcher.readTimeout = .seconds(60)
            try? watcher.send(Request(id: .string("watch"), operation: .watch).encoded())
            _ = try? watcher.readLine()
            _ = watchingStarted.signal()
            while let line = try? watcher.readLine() {
                guard case .event(_, let event)? = try? ResponseLine.decode(line),
                      let id = event["id"]?.text, let kind = event["event"]?.text else { continue }
                let reason = event["reason"]?.text.map { ":" + $0 } ?? ""
                events.withLock { $0[id, default: []].append(kind + reason) }
            }
        }
        watching.start()
        watchingStarted.wait()

        let clients = 64, perClient = 150
        let accepted = Mutex<[String]>([]), refused = Mutex<[String: Int]>([:])
        let group = DispatchGroup()
        for client in 0..<clients {
            group.enter()
            Thread {
                defer { group.leave() }
                guard let connection = try? NookClient(path: socket) else { return }
                connection.readTimeout = .seconds(30)
                for index in 0..<perClient {
                    var activity = NookActivity(
                        coalescingKey: index % 3 == 0 ? "key-\(index % 20)" : nil,
                        priority: [.low, .normal, .high][(client + index) % 3],
                        title: "c\(client)-\(index)", dwell: .milliseconds(5))
                    activity.transition = .zero
                    activity.endDelay = .zero
                    do {
                        let result = try connection.request(Request(id: .number(Double(index)), operation: .enqueue(activity, module: nil, wait: false)))
                        if let id = result["id"]?.text { accepted.withLock { $0.append(id) } }
                    } catch let error as ClientError {
                        if case .daemon(let problem) = error { refused.withLock { $0[problem.code.rawValue, default: 0] += 1 } }
                    } catch {}
                    // A few clients hang up half-way through a request line.
                    if client % 16 == 0, index == perClient / 2 {
                        try? connection.sendRaw(Array(#"{"id":1,"op":"enqueue","activity":{"title":"cut"#.utf8))
                        return
                    }
                }
            }.start()
        }
        group.wait()
        let acceptedIDs = accepted.withLock { $0 }
        let refusals = refused.withLock { $0 }
        #expect(Set(refusals.keys).isSubset(of: ["queueFull"]), "only a full queue may refuse well-formed activities: \(refusals)")
        // Every request sent got exactly one answer: 60 clients sent all 150, the 4 that hung up
        // sent 76 (indexes 0...75) first.
        let hangUps = (0..<clients).filter { $0 % 16 == 0 }.count
        let sent = (clients - hangUps) * perClient + hangUps * (perClient / 2 + 1)
        #expect(acceptedIDs.count + refusals.values.reduce(0, +) == sent, "every request answered: \(acceptedIDs.count) accepted + \(refusals) = \(sent)?")

        // Hold the queue, then account for every accepted activity: it ended exactly once, or it
        // is still pending, or on screen.
        try daemon.request(.suspend(module: nil))
        try eventually("the last card to finish") { (try daemon.request(.status))["modules"]?.items.first?["current"] == .null }
        let list = try daemon.request(.list(module: nil))
        let pending = Set(list["modules"]?.items.first?["pending"]?.items.compactMap { $0["id"]?.text } ?? [])
        try eventually("every event delivered", timeout: 20) {
            events.withLock { seen in acceptedIDs.allSatisfy { id in pending.contains(id) || seen[id]?.contains { $0.hasPrefix("hidden") || $0.hasPrefix("rejected") } == true } }
        }
        let seen = events.withLock { $0 }
        var shown = 0, coalesced = 0, evicted = 0
        for id in acceptedIDs {
            let finals = (seen[id] ?? []).filter { $0.hasPrefix("hidden") || $0.hasPrefix("rejected") }
            #expect(finals.count + (pending.contains(id) ? 1 : 0) == 1, "\(id): \(seen[id] ?? []) pending: \(pending.contains(id))")
            if finals.first?.hasPrefix("hidden") == true { shown += 1 }
            if finals.first == "rejected:coalesced" { coalesced += 1 }
            if finals.first == "rejected:queueFull" { evicted += 1 }
        }
        #expect(shown > 0 && coalesced > 0)
        print("load: \(acceptedIDs.count) accepted (\(shown) shown, \(coalesced) coalesced, \(evicted) evicted, \(pending.count) pending), refused \(refusals)")
        #expect(daemon.process.isRunning)
        #expect(daemon.stop().status == 0)
    }
}
