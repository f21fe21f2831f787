import NookActivities
import NookProtocol
import Testing

/// U3: the `sender` a relaying client states travels on the operations that change cards, is
/// checked as an enqueue's is, and is refused where it means nothing.
@Suite struct StatedSenderProtocolTests {
    static let id = NookActivityID()
    static let changing: [NookOperation] = [
        .cancel(id), .cancelAll(key: "ntfy/alerts/1", module: nil), .dismiss(id), .dismiss(nil), .invoke(id),
        .update(.id(id), changes: ActivityChanges(members: [("title", .string("x"))]), restartDwell: false),
        .update(.key("k", module: "ci"), changes: ActivityChanges(members: [("title", .string("x"))]), restartDwell: false),
    ]

    @Test(arguments: changing)
    func u3_aStatedSenderRoundTripsOnEachOperationThatChangesCards(operation: NookOperation) throws {
        let line = Request(id: .number(7), operation: operation, sender: "grafana").encoded()
        let decoded = try Request.decode(Array(line.utf8)).get()
        #expect(decoded == Request(id: .number(7), operation: operation, sender: "grafana"), "\(line)")
        #expect(decoded.statedSender == "grafana")
        #expect(try Request.decode(Array(Request(id: nil, operation: operation).encoded().utf8)).get().sender == nil)
    }

    @Test func u3_anEnqueuesStatedSenderIsItsActivitysSenderName() throws {
        var activity = NookActivity(title: "t")
        activity.sender = NookSender(uid: 0, pid: 0, name: "uptime-kuma")
        let decoded = try Request.decode(Array(Request(id: nil, operation: .enqueue(activity, module: nil, wait: false)).encoded().utf8)).get()
        #expect(decoded.statedSender == "uptime-kuma" && decoded.sender == nil)
    }

    @Test func u3_aStatedSenderIsRefusedWhereItMeansNothingAndWhenItIsNoName() {
        for line in [#"{"op":"list","sender":"grafana"}"#, #"{"op":"suspend","sender":"grafana"}"#] {
            guard case .failure(let failure) = Request.decode(Array(line.utf8)) else { Issue.record("accepted \(line)"); continue }
            #expect(failure.error.code == .invalid && failure.error.field == "sender", "\(failure.error)")
        }
        let long = String(repeating: "n", count: SenderPayload.maximumNameBytes + 1)
        // Bytes, not characters: 33 two-byte letters are 66 bytes. C1 controls and direction
        // overrides hide or reorder what a person reads in the history.
        let wide = String(repeating: "é", count: 33)
        for sender in [#""""#, #""a\u0007b""#, "\"\(long)\"", "\"\(wide)\"", "3", #""a\u0085b""#, #""\u202Eevil""#, #""\uFEFFbom""#, #""x\u2066y""#] {
            let line = #"{"op":"cancel","activity":"\#(Self.id)","sender":\#(sender)}"#
            guard case .failure(let failure) = Request.decode(Array(line.utf8)) else { Issue.record("accepted \(line)"); continue }
            #expect(failure.error.field == "sender", "\(line): \(failure.error)")
        }
        let widest = String(repeating: "é", count: 32)
        for sender in ["\"\(widest)\"", #""ação-42""#, #""名前""#] {
            let line = #"{"op":"cancel","activity":"\#(Self.id)","sender":\#(sender)}"#
            #expect((try? Request.decode(Array(line.utf8)).get()) != nil, "\(line)")
        }
    }
}
