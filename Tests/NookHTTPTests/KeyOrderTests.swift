import Foundation
import NookHTTP
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// Requests with one key apply in the order nook-http took them (H1, H2, H3): an end sent while
/// the create before it is still on its way to nookd ends the card that create makes. The built
/// nook-http and a real nookd, stopped (SIGSTOP, as a slow SD-card sync stalls it) while the
/// requests arrive, judged by nookd's answers and the cards it holds once every request has
/// been answered.
// nook-http's call timeout at its longest: nookd stays stopped until nook-http has read every
// byte, which a machine loaded by a sanitizer pass can stretch past the tests' usual timeout,
// and every call would come back 504. The test judges the order, not how soon it was read.
@Suite("H1-H3 an end after a create by key, both on their way to nookd", .serialized, .ownThreads)
struct KeyOrderEndToEndTests {
    /// Sends each connection's requests pipelined, in one write per connection, while nookd is
    /// stopped; lets nookd go on once nook-http has read every byte of them, so that every
    /// request has made its first call to nookd before nookd has answered any. Each
    /// connection's answers, in order.
    static func sentWhileNookdIsStopped(_ service: HTTPService, _ connections: [[String]]) throws -> [[Answer]] {
        let opened = try connections.map { _ in try RawConnection(port: service.port) }
        // Only these connections are looked at: other tests' sockets may have the port too.
        let clients = Set(opened.map(\.localPort))
        let nookd = service.nookd.processIdentifier
        ProcessStop.stop(nookd)
        var stopped = true
        defer { if stopped { kill(nookd, SIGCONT) } }
        for (connection, requests) in zip(opened, connections) { try connection.send(requests.joined()) }
        do {
            try nativeAPIEventually("nook-http reading every byte of the requests", timeout: 60) { LoopbackPort.unreadBytes(port: Int(service.port), from: clients) == 0 }
        } catch {
            let unread = LoopbackPort.unreadBytes(port: Int(service.port), from: clients).map { "\($0) bytes" } ?? "/proc/net/tcp unreadable"
            // nookd goes on before its stacks are read: gdb hangs attaching to a stopped process.
            kill(nookd, SIGCONT)
            stopped = false
            throw TestFailure("\(error): \(unread) still unread (connections from ports \(clients.sorted()))\n\(service.logs)")
        }
        kill(nookd, SIGCONT)
        stopped = false
        return try zip(opened, connections).map { connection, requests in
            let text = connection.read(until: { $0.statusCodes.count == requests.count }).text
            guard text.statusCodes.count == requests.count else {
                throw TestFailure("\(requests.count) requests, \(text.statusCodes.count) answers: \(text)\n\(service.logs)")
            }
            return text.components(separatedBy: "HTTP/1.1 ").dropFirst().map(Answer.init)
        }
    }

    static let longestCallTimeout = "[http]\nnookd_timeout_s = 600\n"

    /// One answer of a pipelined connection: its status and its JSON body.
    struct Answer: CustomStringConvertible {
        let status: Int
        let json: JSONValue
        let description: String

        init(_ text: String) {
            description = text
            status = Int(text.prefix(3)) ?? 0
            let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
            json = (try? JSONValue.parse(Array(body.utf8))) ?? .null
        }
    }

    static func request(_ method: String, _ path: String, headers: [String] = [], body: [UInt8] = []) -> String {
        "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\n" + headers.map { $0 + "\r\n" }.joined()
            + "Content-Length: \(body.count)\r\n\r\n" + String(decoding: body, as: UTF8.self)
    }

    /// Sends `requests` (each of whose lines to nookd is over 1,000 bytes) while nookd is stopped,
    /// and waits until all five lines wait in its socket together: each was written as soon as
    /// the one before it, not once answered. Then lets nookd go on; the answers, once all came.
    static func sentBackToBack(_ requests: [String], on connection: RawConnection, _ service: HTTPService, what: String) throws -> String {
        // nookd has accepted nook-http's connection (a connection still in its backlog has no
        // receive queue of its own to count).
        #expect(try curl([service.url + "/healthz"]).output.statusCodes == [200], "\(service.logs)")
        let nookd = service.nookd.processIdentifier
        ProcessStop.stop(nookd)
        var stopped = true
        defer { if stopped { kill(nookd, SIGCONT) } }
        try connection.send(requests.joined())
        do {
            try nativeAPIEventually("the \(requests.count) \(what)' lines waiting in nookd's socket together", timeout: 60) {
                try UnreadBytes.accepted(on: service.socket) > 1_000 * requests.count
            }
        } catch {
            throw TestFailure("\(error): \((try? UnreadBytes.accepted(on: service.socket)) ?? -1) bytes unread\n\(service.logs)")
        }
        kill(nookd, SIGCONT)
        stopped = false
        return connection.read(until: { $0.statusCodes.count == requests.count }).text
    }

    /// The keys of the cards nookd holds, on the glass and waiting, every module.
    static func keysHeld(_ service: HTTPService) throws -> [String] {
        let client = try NookClient(path: service.socket)
        client.readTimeout = TestBounds.duration(.seconds(10))
        let (answer, _) = try client.list(module: nil)
        return answer.modules.flatMap { ($0.current.map { [$0] } ?? []) + $0.pending }.compactMap(\.coalescingKey)
    }

    @Test func h3_aResolveSentWhileItsFiringIsOnItsWayToNookdEndsTheGroupsCard() throws {
        let service = try HTTPService(config: Self.longestCallTimeout)
        func body(_ group: Int, _ status: String, startsAt: String = "2026-11-26T01:00:00Z") -> [UInt8] {
            // Critical: a card that stays until it resolves, so one left behind is still there.
            AlertBodies.alertmanager(status: status, alerts: [AlertBodies.alert("Disk\(group)", instance: "nas\(group)", severity: "critical", status: status,
                                                                                startsAt: startsAt)],
                                     groupKey: "{}:{alertname=\"Disk\(group)\"}", commonLabels: "{\"alertname\": \"Disk\(group)\"}")
        }
        func post(_ body: [UInt8]) -> String { Self.request("POST", "/api/v1/alertmanager", headers: ["Content-Type: application/json"], body: body) }
        func key(_ group: Int) throws -> String { AlertCards.key(for: try AlertNotification.decode(body(group, "firing"), source: .alertmanager).get()) }
        // Each group on a connection of its own, as each of Alertmanager's notifications is;
        // the last group fires again after its resolve (a later start: a new episode, not a
        // retry of the one resolved), which must show it again.
        let groups = 0..<8, again = 8
        let answers = try Self.sentWhileNookdIsStopped(service, groups.map { [post(body($0, "firing")), post(body($0, "resolved"))] }
                                                           + [[post(body(again, "firing")), post(body(again, "resolved")), post(body(again, "firing", startsAt: "2026-11-26T01:05:00Z"))]])
        for (group, pair) in answers.enumerated() {
            #expect(pair.map(\.status).allSatisfy { $0 == 200 }, "group \(group): \(pair)\n\(service.logs)")
            #expect(pair[0].json["status"]?.text == "shown", "group \(group): \(pair[0])")
            #expect(pair[1].json["status"]?.text == "resolved" && pair[1].json["ended"]?.numberValue == 1,
                    "group \(group): the resolve did not end the card its firing made: \(pair[1])")
        }
        #expect(answers.last?.last?.json["status"]?.text == "shown", "\(answers.last ?? [])")
        let resolved = Set(try groups.map(key)), fired = try key(again)
        try nativeAPIEventually("no card of a resolved group left, the group that fired again on the glass or waiting") {
            let held = try Self.keysHeld(service)
            return resolved.isDisjoint(with: held) && held.filter { $0 == fired }.count == 1
        }
    }

    @Test func h2_anNtfyDeleteOrClearSentWhileItsMessageIsOnItsWayToNookdEndsTheCard() throws {
        let service = try HTTPService(config: Self.longestCallTimeout + "[publish]\ntopics = [\"home\"]\n")
        // Priority 5 stays until cleared, so a card left behind is still there.
        func publish(_ sequence: String) -> String {
            Self.request("POST", "/home", headers: ["Title: Backup", "X-Sequence-ID: \(sequence)", "Priority: 5"], body: Array("Copying \(sequence)".utf8))
        }
        let sequences = (0..<6).map { "s\($0)" }
        let answers = try Self.sentWhileNookdIsStopped(service, sequences.enumerated().map { index, sequence in
            [publish(sequence), index % 2 == 0 ? Self.request("DELETE", "/home/\(sequence)") : Self.request("PUT", "/home/\(sequence)/clear")]
        })
        for (sequence, pair) in zip(sequences, answers) {
            #expect(pair.map(\.status) == [200, 200], "\(sequence): \(pair)\n\(service.logs)")
            #expect(pair[1].json["nook"]?["ended"]?.numberValue == 1, "\(sequence): the end did not end the card the message made: \(pair[1])")
        }
        let keys = Set(sequences.map { NtfyMapping.key(topic: "home", sequenceID: $0) })
        try nativeAPIEventually("no card of an ended sequence id left") { keys.isDisjoint(with: try Self.keysHeld(service)) }
    }

    @Test func h1_aDeleteByKeySentWhileItsCreateIsOnItsWayToNookdEndsTheCard() throws {
        let service = try HTTPService(config: Self.longestCallTimeout)
        let keys = (0..<6).map { "job\($0)" }
        let answers = try Self.sentWhileNookdIsStopped(service, keys.map { key in
            [Self.request("POST", "/api/v1/activities", headers: ["Content-Type: application/json"],
                          body: Array(#"{"title":"Job \#(key)","key":"\#(key)","blocker":true}"#.utf8)),
             Self.request("DELETE", "/api/v1/activities?key=\(key)")]
        })
        for (key, pair) in zip(keys, answers) {
            #expect(pair.map(\.status) == [201, 200], "\(key): \(pair)\n\(service.logs)")
            #expect(pair[1].json["cancelled"]?.numberValue == 1, "\(key): the delete did not end the card the create made: \(pair[1])")
        }
        try nativeAPIEventually("no card of a deleted key left") { Set(keys).isDisjoint(with: try Self.keysHeld(service)) }
    }

    /// A key's creates are one call each: the next is written to nookd as soon as the one before
    /// it is, not once nookd has answered it (its journal then syncs them together). Seen with
    /// nookd stopped: every create's line waits in its socket at once. Once it goes on, they
    /// apply in the order sent: the last card in line is the last one's.
    @Test func h1_aKeysCreatesReachNookdBackToBackAndApplyInOrder() throws {
        let service = try HTTPService(config: Self.longestCallTimeout)
        let connection = try RawConnection(port: service.port)
        // Each line to nookd holds a subtitle of 1,000 bytes: five lines are more than 5,000
        // bytes, one alone less than 2,000.
        let subtitle = String(repeating: "x", count: 1_000)
        let creates = (0..<5).map { index in
            Self.request("POST", "/api/v1/activities", headers: ["Content-Type: application/json"],
                         body: Array(#"{"title":"Copy \#(index)","subtitle":"\#(subtitle)","key":"copy","blocker":true}"#.utf8))
        }
        let text = try Self.sentBackToBack(creates, on: connection, service, what: "creates")
        #expect(text.statusCodes == [201, 201, 201, 201, 201], "\(text)\n\(service.logs)")
        // Each create coalesced the one waiting before it (Q4); the one on the glass, if the
        // screen took one before the rest came, stays. The last in line is the last sent.
        let client = try NookClient(path: service.socket)
        let (answer, _) = try client.list(module: nil)
        let held = answer.modules.flatMap { ($0.current.map { [$0] } ?? []) + $0.pending }.filter { $0.coalescingKey == "copy" }
        #expect(held.last?.title == "Copy 4" && held.count <= 2, "\(held.map(\.title))")
    }

    /// An ntfy sequence's messages are one call each too (an in-place enqueue: the live card
    /// with its key becomes the message, or it is queued), so they reach nookd back to back, and
    /// apply in the order sent: one card, the last message's.
    @Test func h2_u1_aSequencesMessagesReachNookdBackToBackAndLeaveOneCardTheLastOnes() throws {
        let service = try HTTPService(config: Self.longestCallTimeout + "[publish]\ntopics = [\"home\"]\n")
        let connection = try RawConnection(port: service.port)
        let padding = String(repeating: "x", count: 1_000)
        // Priority 5 stays until cleared: every message finds the card the one before left.
        let messages = (0..<5).map { index in
            Self.request("POST", "/home", headers: ["Title: Copy \(index)", "X-Sequence-ID: copy", "Priority: 5"], body: Array(padding.utf8))
        }
        let text = try Self.sentBackToBack(messages, on: connection, service, what: "messages")
        #expect(text.statusCodes == [200, 200, 200, 200, 200], "\(text)\n\(service.logs)")
        let client = try NookClient(path: service.socket)
        let (answer, _) = try client.list(module: nil)
        let held = answer.modules.flatMap { ($0.current.map { [$0] } ?? []) + $0.pending }
            .filter { $0.coalescingKey == NtfyMapping.key(topic: "home", sequenceID: "copy") }
        #expect(held.map(\.title) == ["Copy 4"], "\(held.map(\.title))")
    }

    /// A burst on one key while nookd is stalled fills at most the calls in flight: a create left
    /// waiting for room keeps its key's turn, so the rest of the burst waits in nook-http and a read
    /// sent after it still finds room among the waiting calls. No create is turned away (503) while
    /// a later one with its key is taken.
    @Test func h1_aBurstOnOneKeyDoesNotCrowdOtherRequestsOutOfTheLinkToNookd() throws {
        let service = try HTTPService(config: Self.longestCallTimeout)
        #expect(try curl([service.url + "/healthz"]).output.statusCodes == [200], "\(service.logs)")
        // 500 creates: more than the 128 calls in flight and 256 waiting the link allows.
        let connections = try (0..<50).map { _ in try RawConnection(port: service.port) }
        let nookd = service.nookd.processIdentifier
        ProcessStop.stop(nookd)
        var stopped = true
        defer { if stopped { kill(nookd, SIGCONT) } }
        for (number, connection) in connections.enumerated() {
            try connection.send((0..<10).map { index in
                Self.request("POST", "/api/v1/activities", headers: ["Content-Type: application/json"],
                             body: Array(#"{"title":"Copy \#(number * 10 + index)","key":"flood"}"#.utf8))
            }.joined())
        }
        let clients = Set(connections.map(\.localPort))
        try nativeAPIEventually("nook-http reading every create", timeout: 60) { LoopbackPort.unreadBytes(port: Int(service.port), from: clients) == 0 }
        let read = try RawConnection(port: service.port)
        try read.send(Self.request("GET", "/api/v1/status"))
        try nativeAPIEventually("nook-http reading the status request", timeout: 60) {
            LoopbackPort.unreadBytes(port: Int(service.port), from: [read.localPort]) == 0
        }
        kill(nookd, SIGCONT)
        stopped = false
        var codes: [Int] = []
        for connection in connections { codes += connection.read(until: { $0.statusCodes.count == 10 }, seconds: 120).text.statusCodes }
        #expect(codes.count == 500 && codes.allSatisfy { $0 == 201 }, "\(Dictionary(grouping: codes, by: { $0 }).mapValues(\.count))\n\(service.logs)")
        #expect(read.read(until: { $0.statusCodes.count == 1 }).text.statusCodes == [200], "the read was turned away")
    }
}

