import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// U3 for a relay (nook-http): one uid stating for whom it acts. A stated `sender` reaches only
/// the cards that uid sent under that name, even though this test's uid is nookd's own (an
/// admin); without one, the uid's own standing applies as before.
@Suite("U3 a relay's stated sender owns only its own cards", .serialized, .ownThreads)
struct StatedSenderTests {
    func card(_ title: String, key: String? = nil, from name: String? = nil) -> NookActivity {
        var activity = NookActivity(coalescingKey: key, title: title)
        if let name { activity.sender = NookSender(uid: 0, pid: 0, name: name) }
        return activity
    }

    /// The refusal nookd answered, or nil when it carried the request out.
    func refusal(_ client: NookClient, _ operation: NookOperation, as sender: String?) -> ProtocolError? {
        do {
            _ = try client.request(Request(id: .number(1), operation: operation, sender: sender))
            return nil
        } catch .daemon(let error) {
            return error
        } catch {
            return ProtocolError(.internalError, "\(error)")
        }
    }

    func pending(_ daemon: DaemonProcess) throws -> [NookActivity] {
        try ListAnswer(json: daemon.request(.list(module: nil))).modules.flatMap { ($0.current.map { [$0] } ?? []) + $0.pending }
    }

    @Test func u3_aStatedSenderMayNotUpdateCancelOrDismissAnotherNamesCardAndItsKeyReachesOnlyItsOwn() throws {
        let daemon = try DaemonProcess()
        try daemon.request(.suspend(module: nil))
        let client = try NookClient(path: daemon.socket)
        let alice = card("alice's", key: "k", from: "alice")
        _ = try client.request(Request(id: .number(1), operation: .enqueue(alice, module: nil, wait: false)))
        _ = try client.request(Request(id: .number(2), operation: .enqueue(card("bob's", key: "k", from: "bob"), module: nil, wait: false)))
        #expect(try pending(daemon).map(\.title) == ["alice's", "bob's"], "bob's key coalesced nothing of alice's")
        let bobs = card("bob's again", key: "k", from: "bob")
        _ = try client.request(Request(id: .number(3), operation: .enqueue(bobs, module: nil, wait: false)))
        #expect(try pending(daemon).map(\.title) == ["alice's", "bob's again"], "bob's key still coalesces bob's own")
        let plainAnswer = try daemon.request(.enqueue(card("nobody stated"), module: nil, wait: false))
        let plain = try #require(NookActivityID(plainAnswer["id"]?.text ?? ""))

        // By id: refused, naming the card and whose it is; nothing changed.
        for operation: NookOperation in [.update(.id(alice.id), changes: ActivityChanges(members: [("title", .string("bob's now"))]), restartDwell: false),
                                         .cancel(alice.id), .dismiss(alice.id), .update(.id(plain), changes: ActivityChanges(members: [("progress", .number(0.5))]), restartDwell: false),
                                         .cancel(plain)] {
            let error = refusal(client, operation, as: "bob")
            #expect(error?.code == .forbidden && error?.field == "activity", "\(operation): \(String(describing: error))")
            #expect(error?.message.contains("'bob' (relayed by uid \(getuid())) may not") == true, "\(String(describing: error))")
        }
        #expect(refusal(client, .cancel(alice.id), as: "bob")?.message.contains("sent by 'alice'") == true)
        // A name a relay states never stands for a process of this uid with that name.
        // nookd names a process's card by its comm, as this test process's is.
        let processName = try String(contentsOfFile: "/proc/self/comm", encoding: .utf8).trimmingCharacters(in: .newlines)
        let sameName = refusal(client, .cancel(plain), as: processName)
        #expect(sameName?.code == .forbidden && sameName?.message.contains("without a stated sender") == true, "\(String(describing: sameName))")
        #expect(try pending(daemon).map(\.title) == ["alice's", "bob's again", "nobody stated"], "nothing changed")

        // By key: only bob's card is updated and cancelled; alice's is left alone.
        let updated = try UpdateAnswer(json: client.request(Request(id: .number(4), operation: .update(.key("k", module: nil),
                                                                    changes: ActivityChanges(members: [("subtitle", .string("by key"))]), restartDwell: false), sender: "bob")))
        #expect(updated.updated.map(\.id) == [bobs.id], "\(updated)")
        #expect(try pending(daemon).first { $0.id == alice.id }?.subtitle == nil)
        let cancelled = try CancelAllAnswer(json: client.request(Request(id: .number(5), operation: .cancelAll(key: "k", module: nil), sender: "bob")))
        #expect(cancelled.cancelled == 1)
        #expect(try pending(daemon).map(\.title) == ["alice's", "nobody stated"])
        // A key only another name's card has: refused, not someone else's card changed.
        let byKey = refusal(client, .update(.key("k", module: nil), changes: ActivityChanges(members: [("title", .string("x"))]), restartDwell: false), as: "bob")
        #expect(byKey?.code == .forbidden && byKey?.message.contains("sent by 'alice'") == true, "\(String(describing: byKey))")
        #expect(try CancelAllAnswer(json: client.request(Request(id: .number(6), operation: .cancelAll(key: "k", module: nil), sender: "bob"))).cancelled == 0)

        // Alice's own name acts on it; without a stated sender this uid (nookd's own) acts on all.
        #expect(refusal(client, .update(.id(alice.id), changes: ActivityChanges(members: [("subtitle", .string("mine"))]), restartDwell: false), as: "alice") == nil)
        #expect(refusal(client, .dismiss(alice.id), as: "alice") == nil)
        #expect(refusal(client, .cancel(plain), as: nil) == nil)
        #expect(try pending(daemon).isEmpty)
        #expect(daemon.stop().status == 0)
    }

    @Test func u3_namesInOnePipelinedBurstEachCoalesceOnlyTheirOwnPendingCards() throws {
        let daemon = try DaemonProcess()
        try daemon.request(.suspend(module: nil))
        let client = try NookClient(path: daemon.socket)
        // One write: nookd queues a burst of plain enqueues in one call, which must not let
        // one name's key reach another's card.
        let burst = [card("a1", key: "k", from: "alice"), card("b1", key: "k", from: "bob"), card("a2", key: "k", from: "alice"),
                     card("b2", key: "k", from: "bob")]
        try client.send(burst.enumerated().map { Request(id: .number(Double($0.offset)), operation: .enqueue($0.element, module: nil, wait: false)).encoded() }
            .joined(separator: "\n"))
        for _ in burst {
            let line = try #require(try client.readLine())
            guard case .success = try ResponseLine.decode(line) else { Issue.record("refused: \(String(decoding: line, as: UTF8.self))"); continue }
        }
        #expect(try pending(daemon).map(\.title) == ["a2", "b2"], "each name's last card, and no other name's card replaced")
        #expect(daemon.stop().status == 0)
    }
}
