import Foundation
import NookActivities
import NookProtocol
import NookTestTraits
import Testing

/// An enqueue on its own, one of a pipelined run and a replayed history entry go through one
/// path: the same checks give the same answers.
@Suite("C1 C3 one enqueue path", .serialized, .ownThreads)
struct EnqueuePathTests {
    @Test func q16_aSingleAPipelinedAndAReplayedEnqueueAreRefusedAlikeWhenTheQueueIsFull() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[queue]\ncapacity = 1\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        try daemon.request(.enqueue(NookActivity(title: "Gone", dwell: .milliseconds(50)), module: nil, wait: false))
        try eventually("the first card in the history") { (try daemon.request(.history(HistoryQuery())))["entries"]?.items.count == 1 }
        try daemon.request(.suspend(module: nil))
        try daemon.request(.enqueue(NookActivity(title: "Filler"), module: nil, wait: false))

        func refusals(_ lines: [String]) throws -> [ProtocolError] {
            let client = try daemon.client()
            try client.sendRaw(Array((lines.joined(separator: "\n") + "\n").utf8))
            return try lines.map { line in
                let answer = try #require(try client.readLine(), "no answer to \(line)")
                guard case .failure(_, let error) = try ResponseLine.decode(answer) else {
                    Issue.record("\(line) was answered \(String(decoding: answer, as: UTF8.self))")
                    return ProtocolError(.internalError, "")
                }
                return error
            }
        }
        func enqueue(_ id: Int, wait: Bool = false) -> String {
            Request(id: .number(Double(id)), operation: .enqueue(NookActivity(title: "Card \(id)"), module: nil, wait: wait)).encoded()
        }
        let single = try refusals([enqueue(1, wait: true)])
        let pipelined = try refusals([enqueue(2), enqueue(3)])
        let replayed = try refusals([Request(id: .number(4), operation: .historyReplay(.number(1))).encoded()])
        let expected = ProtocolError(.queueFull, "module default already holds 1 pending activities of equal or higher priority")
        #expect(single + pipelined + replayed == [expected, expected, expected, expected])
        #expect(daemon.stop().status == 0)
    }

    /// `queue.per_sender` for a program that is not a relay (its uid is not in
    /// `daemon.relay_users`): the names it states all count in its uid's one share, so stating
    /// many names takes no more of the queue; the refusal says why.
    @Test func q16_namesStatedByAProgramThatIsNotARelayShareItsUidsShare() throws {
        let scratch = Scratch()
        // Some other uid is the relay; this test's is not.
        let config = scratch.file("nook.toml", "[daemon]\nrelay_users = [\"\(getuid() == 4242 ? 4243 : 4242)\"]\n[queue]\nper_sender = 2\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        defer { _ = daemon.stop() }
        try daemon.request(.suspend(module: nil))
        func refusal(_ title: String, from name: String?) throws -> ProtocolError? {
            let card = NookActivity(title: title, sender: name.map { NookSender(uid: 0, pid: 0, name: $0) })
            do {
                _ = try daemon.client().request(Request(id: .number(1), operation: .enqueue(card, module: nil, wait: false)))
                return nil
            } catch ClientError.daemon(let error) {
                return error
            }
        }
        #expect(try refusal("A", from: "alice") == nil)
        #expect(try refusal("B", from: "bob") == nil)
        let third = try refusal("C", from: "carol")
        #expect(third == ProtocolError(.queueFull, "uid \(getuid()) (whose stated senders share its own share: it is not in daemon.relay_users) "
                                       + "already holds 2 pending activities in module default, none of lower priority, and queue.per_sender allows 2"))
        #expect(try refusal("Own", from: nil)?.code == .queueFull, "its programs without a stated name share the same share")
    }

    @Test func q16_aRelayUserThatDoesNotExistIsRefusedAtStartNamingTheKey() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[daemon]\nrelay_users = [\"no-such-user-here\"]\n")
        let daemon = try DaemonProcess.exited(scratch: scratch, arguments: ["--config", config])
        #expect(daemon.process.terminationStatus != 0)
        #expect(daemon.log.contains("daemon.relay_users: no user named 'no-such-user-here'"), "\(daemon.log)")
    }

    /// `queue.per_sender`: a relay's sender (a nook-http token; this test's uid is the relay,
    /// `daemon.relay_users`) at its share is refused with an error naming the share; another
    /// name, and the uid's own programs, still get in; a reload lifts the share for the next request.
    @Test func q16_aSenderAtItsShareIsRefusedNamingItWhileOtherSendersStillGetIn() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[daemon]\nrelay_users = [\"\(getuid())\"]\n[queue]\nper_sender = 2\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        try daemon.request(.suspend(module: nil))
        func card(_ title: String, from name: String?) -> NookOperation {
            .enqueue(NookActivity(title: title, sender: name.map { NookSender(uid: 0, pid: 0, name: $0) }), module: nil, wait: false)
        }
        func refusal(_ operation: NookOperation) throws -> ProtocolError? {
            do {
                _ = try daemon.client().request(Request(id: .number(1), operation: operation))
                return nil
            } catch ClientError.daemon(let error) {
                return error
            }
        }
        #expect(try refusal(card("CI 1", from: "ci")) == nil)
        #expect(try refusal(card("CI 2", from: "ci")) == nil)
        #expect(try refusal(card("CI 3", from: "ci")) == ProtocolError(.queueFull,
            "sender \"ci\" (relayed by uid \(getuid())) already holds 2 pending activities in module default, none of lower priority, and queue.per_sender allows 2"))
        #expect(try refusal(card("Grafana", from: "grafana")) == nil, "another token's share")
        #expect(try refusal(card("Backup 1", from: nil)) == nil, "the uid's own programs")
        #expect(try refusal(card("Backup 2", from: nil)) == nil)
        #expect(try refusal(card("Backup 3", from: nil)) == ProtocolError(.queueFull,
            "uid \(getuid()) already holds 2 pending activities in module default, none of lower priority, and queue.per_sender allows 2"))
        let list = try daemon.request(.list(module: nil))
        #expect(list["modules"]?.items.first?["pending"]?.items.compactMap { $0["title"]?.text }
                == ["CI 1", "CI 2", "Grafana", "Backup 1", "Backup 2"], "nothing already queued is lost")

        try "[queue]\nper_sender = 0\n".write(toFile: config, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        try eventually("the reload's note") { daemon.log.contains("SIGHUP: reloaded") }
        #expect(try refusal(card("CI 3", from: "ci")) == nil, "no share after the reload")
        #expect(daemon.stop().status == 0)
    }

    /// A replayed entry is sent by the connection that replays it, as any enqueue is: the
    /// process's name is recorded, not stated as a relay's (which only requests stating that
    /// name again would reach, and which would count against a share of its own).
    @Test func u4_u3_aReplayedCardIsItsReplayersOwnNotARelayedName() throws {
        let scratch = Scratch()
        let daemon = try DaemonProcess(scratch: scratch)
        try daemon.request(.enqueue(NookActivity(title: "Gone", dwell: .milliseconds(50)), module: nil, wait: false))
        try eventually("the first card in the history") { (try daemon.request(.history(HistoryQuery())))["entries"]?.items.count == 1 }
        try daemon.request(.historyReplay(.number(1)))
        try eventually("the replay in the history") { (try daemon.request(.history(HistoryQuery())))["entries"]?.items.count == 2 }
        let senders = (try daemon.request(.history(HistoryQuery())))["entries"]?.items.compactMap { $0["sender"] } ?? []
        #expect(senders.count == 2)
        for sender in senders {
            #expect(sender["uid"] == .number(0) && sender["relayed"] == nil, "\(sender.serialized)")
        }
        #expect(daemon.stop().status == 0)
    }
}
