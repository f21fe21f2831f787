import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// U1 with U3: an enqueue with `inPlace` changes the live cards with its key that it reaches into
/// the new one, in one call, and queues it only when none is live: an ntfy sequence's messages
/// and a bridge's "replace" without a round trip between an update and an enqueue.
@Suite("U1 an in-place enqueue changes the live card with its key, or queues it", .serialized, .ownThreads)
struct InPlaceEnqueueTests {
    func card(_ title: String, key: String = "k", from name: String, subtitle: String? = nil, tint: NookTint? = nil) -> NookActivity {
        var activity = NookActivity(coalescingKey: key, title: title, subtitle: subtitle)
        activity.sender = NookSender(uid: 0, pid: 0, name: name)
        if let tint { activity.tint = tint }
        return activity
    }

    func held(_ daemon: DaemonProcess) throws -> [NookActivity] {
        try ListAnswer(json: daemon.request(.list(module: nil))).modules.flatMap { ($0.current.map { [$0] } ?? []) + $0.pending }
    }

    func send(_ client: NookClient, _ activity: NookActivity, _ reach: InPlaceReach = .sender) throws -> EnqueueAnswer {
        try EnqueueAnswer(json: client.request(Request(id: .number(1), operation: .enqueue(activity, module: nil, wait: false, inPlace: reach))))
    }

    @Test func u1_u3_anInPlaceEnqueueQueuesWhenNothingIsLiveThenChangesTheSendersOwnCardWhole() throws {
        let daemon = try DaemonProcess()
        try daemon.request(.suspend(module: nil))
        let client = try NookClient(path: daemon.socket)
        let first = card("Copying 10%", from: "alice", subtitle: "disk 1", tint: .named(.red))
        let queued = try send(client, first)
        #expect(queued.id == first.id && queued.updated == nil, "nothing live had the key: queued as it is, \(queued)")

        let second = card("Copying 50%", from: "alice")
        let changed = try send(client, second)
        #expect(changed.id == first.id && changed.updated?.map(\.id) == [first.id], "the live card keeps its id: \(changed)")
        #expect(changed.updated?.first.map { Set($0.fields) } == ["title", "subtitle", "tint"], "\(changed)")
        let cards = try held(daemon)
        #expect(cards.map(\.title) == ["Copying 50%"], "one card, the new one's content")
        #expect(cards.first?.subtitle == nil && cards.first?.tint == .accent, "what the new card lacks is cleared, not kept: \(cards)")

        // Another sender's card with the key is not reached: bob's is queued beside it.
        let bobs = card("Bob's copy", from: "bob")
        let bob = try send(client, bobs)
        #expect(bob.id == bobs.id && bob.updated == nil, "\(bob)")
        #expect(try held(daemon).map(\.title) == ["Copying 50%", "Bob's copy"])

        // "any": every card the peer may change (this test's uid is nookd's own, an admin).
        let admin = try send(client, card("Admin's word", from: "admin"), .any)
        #expect(Set(admin.updated?.map(\.id) ?? []) == [first.id, bobs.id], "\(admin)")
        #expect(try held(daemon).map(\.title) == ["Admin's word", "Admin's word"])
        // A card changed stays its sender's: bob's next reaches his alone.
        let bobAgain = try send(client, card("Bob's again", from: "bob"))
        #expect(bobAgain.updated?.map(\.id) == [bobs.id], "\(bobAgain)")
        #expect(try held(daemon).map(\.title) == ["Admin's word", "Bob's again"])
    }

    @Test func u1_anInPlaceEnqueueRefusedChangesNothingAndNamesTheActivitysField() throws {
        let daemon = try DaemonProcess()
        try daemon.request(.suspend(module: nil))
        let client = try NookClient(path: daemon.socket)
        _ = try send(client, card("Door open", from: "alice"))
        var missing = card("Door closed", from: "alice")
        missing.sound = "no-such-file.wav"
        let whileLive = refusal(client, missing)
        #expect(whileLive?.code == .invalid && whileLive?.field == "activity.sound", "changing the live card: \(String(describing: whileLive))")
        #expect(try held(daemon).map(\.title) == ["Door open"], "nothing changed")
        _ = try client.request(Request(id: .number(3), operation: .cancelAll(key: "k", module: nil)))
        let queued = refusal(client, missing)
        #expect(queued?.code == .invalid && queued?.field == "activity.sound", "queued: \(String(describing: queued))")
        #expect(try held(daemon).isEmpty, "nothing queued")
    }

    /// nookd's refusal of `activity` sent in place, or nil when it took it.
    func refusal(_ client: NookClient, _ activity: NookActivity) -> ProtocolError? {
        do {
            _ = try client.request(Request(id: .number(2), operation: .enqueue(activity, module: nil, wait: false, inPlace: .sender)))
            return nil
        } catch .daemon(let error) {
            return error
        } catch {
            return ProtocolError(.internalError, "\(error)")
        }
    }

    @Test func u1_anInPlaceEnqueueWithoutAKeyOrWithWaitIsRefusedNamingTheField() {
        func refusal(_ line: String) -> ProtocolError? {
            guard case .failure(let failure) = Request.decode(Array(line.utf8)) else { return nil }
            return failure.error
        }
        #expect(refusal(#"{"v":1,"id":1,"op":"enqueue","activity":{"title":"No key"},"inPlace":true}"#)?.field == "inPlace")
        #expect(refusal(#"{"v":1,"id":1,"op":"enqueue","activity":{"title":"K","key":"k"},"inPlace":true,"wait":true}"#)?.field == "wait")
        let word = refusal(#"{"v":1,"id":1,"op":"enqueue","activity":{"title":"K","key":"k"},"inPlace":"all"}"#)
        #expect(word?.field == "inPlace" && word?.message.contains("\"any\"") == true, "\(String(describing: word))")
        #expect(refusal(#"{"v":1,"id":1,"op":"enqueue","activity":{"title":"K","key":"k"},"inPlace":false}"#) == nil)
        for reach in [InPlaceReach.sender, .any] {
            let keyed = NookActivity(coalescingKey: "k", title: "Keyed")
            let line = Request(id: .number(1), operation: .enqueue(keyed, module: nil, wait: false, inPlace: reach)).encoded()
            guard case .success(let decoded) = Request.decode(Array(line.utf8)), case .enqueue(_, _, _, let read) = decoded.operation else {
                Issue.record("\(line)")
                continue
            }
            #expect(read == reach, "\(line)")
        }
    }
}
