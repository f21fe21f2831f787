import NookActivities
import NookTestSupport
import Testing

@Suite("Q1 activity model")
struct ActivityModelTests {
    @Test func q1_defaultsMatchTheSpec() {
        let build = NookActivity(title: "Build finished")
        #expect(build.priority == .normal)
        #expect(build.dwell == .milliseconds(2400))
        #expect(build.presentation == .timed)
        #expect(build.tint == .accent)
        #expect(build.coalescingKey == nil)
        #expect(build.transition == .milliseconds(250))
        #expect(NookActivity(title: "x").id != build.id, "ids are assigned fresh")
        #expect(NookActivityPriority.low < .normal && NookActivityPriority.normal < .high)
    }

    @Test func q1_idIsAVersion4UUIDThatRoundTripsThroughText() throws {
        let id = NookActivityID()
        let text = id.description
        #expect(text.count == 36)
        #expect(Array(text)[14] == "4", "version nibble")
        #expect("89ab".contains(Array(text)[19]), "variant bits")
        #expect(NookActivityID(text) == id)
        #expect(NookActivityID(text.uppercased()) == id)
        #expect(NookActivityID("not-a-uuid") == nil)
        #expect(NookActivityID("0123456789abcdef0123456789abcdef") == nil, "dashes are required")
        #expect(NookActivityID("g1234567-89ab-4cde-8f01-23456789abcd") == nil)
    }

    @Test(arguments: [
        ("green", NookTint.named(.green)), ("Grey", .named(.gray)), ("accent", .accent),
        ("#FF8000", .rgb(red: 255, green: 128, blue: 0)), ("#0a0b0c", .rgb(red: 10, green: 11, blue: 12)),
    ])
    func q1_tintParsesPaletteNamesAndHex(text: String, tint: NookTint) {
        #expect(NookTint(parsing: text) == tint)
    }

    @Test(arguments: ["chartreuse", "#12345", "#1234567", "#GG0000", "", "#-12345"])
    func q1_tintRejectsAnythingElse(text: String) {
        #expect(NookTint(parsing: text) == nil)
    }

    @Test func q1_tintPrintsWhatItParses() {
        for text in ["accent", "mint", "#0a0b0c"] {
            #expect(NookTint(parsing: text)?.description == text)
        }
    }

    @Test(arguments: [
        (NookActivity(title: ""), "title"),
        (NookActivity(title: "   "), "title"),
        (NookActivity(title: String(repeating: "x", count: 513)), "title"),
        (NookActivity(title: "a\u{0}b"), "title"),
        (NookActivity(title: "ok", subtitle: String(repeating: "y", count: 1025)), "subtitle"),
        (NookActivity(coalescingKey: "", title: "ok"), "key"),
        (NookActivity(title: "ok", dwell: .zero), "dwell"),
        (NookActivity(title: "ok", dwell: .seconds(-1)), "dwell"),
        (NookActivity(title: "ok", dwell: .seconds(100_000)), "dwell"),
        (NookActivity(title: "ok", presentation: .blocker(timeout: .zero)), "timeout"),
        (NookActivity(title: "ok", expiresAfter: .seconds(-5)), "expiresAfter"),
        (NookActivity(title: "ok", progress: 1.5), "progress"),
        (NookActivity(title: "ok", progress: -0.1), "progress"),
        (NookActivity(title: "ok", progress: .nan), "progress"),
        (NookActivity(title: "ok", transition: .seconds(-1)), "transition"),
        // Blank without a printable ASCII byte: whitespace beyond ASCII, a CR-LF, controls.
        (NookActivity(title: "\u{00A0}\u{3000}\r\n\u{2028}\t"), "title"),
        (NookActivity(title: "é\u{0}"), "title"),
        (NookActivity(title: String(repeating: "é", count: 513)), "title"),
        (NookActivity(title: String(repeating: "🔨", count: 513)), "title"),
    ])
    func q1_validationNamesTheBadField(activity: NookActivity, field: String) {
        #expect(throws: NookActivityValidationError.self) { try activity.validate() }
        do {
            try activity.validate()
        } catch {
            #expect(error.field == field)
        }
    }

    @Test func q1_validActivitiesPass() throws {
        try NookActivity(title: "Build finished", subtitle: "Debug · 12.4s", systemImage: "hammer",
                         tint: .named(.green), progress: 1).validate()
        try NookActivity(title: "Doorbell 🔔 Türklingel 门铃", presentation: .blocker(timeout: nil)).validate()
        // Limits count characters as JSON Schema does, in code points, not bytes: 512 two-byte
        // and four-byte code points fit, and 256 letters written with a combining mark.
        try NookActivity(title: String(repeating: "é", count: 512)).validate()
        try NookActivity(title: String(repeating: "🔨", count: 512)).validate()
        try NookActivity(title: String(repeating: "e\u{301}", count: 256)).validate()
        #expect(throws: NookActivityValidationError.self) { try NookActivity(title: String(repeating: "e\u{301}", count: 257)).validate() }
        // Not blank: visible characters beyond ASCII, and a control character that is not whitespace.
        try NookActivity(title: "门铃").validate()
        try NookActivity(title: " \u{1}").validate()
    }

    @Test func q1_queueRejectsInvalidActivityAsInvalidAndKeepsTheRest() async throws {
        let harness = await QueueHarness(bind: false)
        let kept = activity("kept")
        await harness.queue.enqueue(kept)
        let bad = NookActivity(title: "ok", dwell: .seconds(-1))
        let result = await harness.queue.enqueue(bad)
        guard case .rejected(let id, .invalid(let error)) = result else {
            Issue.record("expected invalid, got \(result)")
            return
        }
        #expect(id == bad.id)
        #expect(error.field == "dwell")
        #expect(await harness.queue.pending.map(\.id) == [kept.id])
        try await harness.recorder.waitFor("rejected invalid") { $0.id == bad.id && $0.kind == .rejected(.invalid(error)) }
    }

    @Test func q1_duplicateIdIsRejectedWithoutTouchingTheQueuedOne() async throws {
        let harness = await QueueHarness(bind: false)
        let first = activity("first")
        await harness.queue.enqueue(first)
        var copy = activity("copy")
        copy.id = first.id
        let result = await harness.queue.enqueue(copy)
        guard case .rejected(_, .invalid(let error)) = result else {
            Issue.record("expected invalid, got \(result)")
            return
        }
        #expect(error.field == "id")
        #expect(await harness.queue.pending.map(\.title) == ["first"])
    }
}
