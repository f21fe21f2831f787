import NookActivities
import NookProtocol
import Testing

/// Text is bounded in characters, in bytes and in scalars per character wherever it enters, so
/// one character of thousands of combining marks (tens of KiB) is refused like a long title.
@Suite("C3 text limits in characters, bytes and scalars")
struct TextLimitTests {
    func decode(_ line: String) -> Result<Request, RequestFailure> { Request.decode(Array(line.utf8)) }

    /// A JSON string literal (the texts here need no escaping but the quotes).
    func quoted(_ text: String) -> String { "\"" + text + "\"" }

    /// One letter and `marks` combining acute accents: one character, 1 + 2 × `marks` bytes.
    func stacked(_ marks: Int) -> String { "t" + String(repeating: "\u{301}", count: marks) }

    func failure(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) -> ProtocolError? {
        guard case .failure(let failure) = decode(line) else {
            Issue.record("accepted \(line.prefix(80))…", sourceLocation: sourceLocation)
            return nil
        }
        return failure.error
    }

    @Test func c3_aTitleOfOneCharacterOverTheByteLimitIsRefusedNamingTheFieldAndTheLimitInBytes() {
        let title = stacked(31_000)
        #expect(title.count == 1)
        let error = failure(#"{"op":"enqueue","activity":{"title":\#(quoted(title))}}"#)
        #expect(error?.code == .invalid)
        #expect(error?.field == "activity.title")
        #expect(error?.message == "is 62001 bytes long in UTF-8; at most 2048 are allowed")
    }

    @Test func c3_anUpdateOverTheByteLimitIsRefusedNamingTheChangedField() {
        let id = NookActivityID()
        let title = String(repeating: "a\u{301}", count: 400)  // 400 characters, 1,200 bytes
        let subtitle = String(repeating: stacked(20), count: 100)  // 100 characters, 4,100 bytes
        let error = failure(#"{"op":"update","activity":"\#(id)","changes":{"title":\#(quoted(title)),"subtitle":\#(quoted(subtitle))}}"#)
        #expect(error?.field == "changes.subtitle")
        #expect(error?.message == "is 4100 bytes long in UTF-8; at most 4096 are allowed")
    }

    @Test func c3_aCharacterOfMoreScalarsThanTheLimitIsRefusedInScalars() {
        // 2 + 33 × 2 = 68 bytes: within every other limit.
        let title = "ok " + stacked(32)
        let error = failure(#"{"op":"enqueue","activity":{"title":\#(quoted(title))}}"#)
        #expect(error?.field == "activity.title")
        #expect(error?.message == "character 4 is made of 33 Unicode scalars (a letter and its combining marks, or a sequence); at most 32 are allowed in one character")
        // A ZWJ chain of emoji is one character too.
        let chain = Array(repeating: "👩", count: 17).joined(separator: "\u{200D}")
        #expect(chain.count == 1)
        #expect(failure(#"{"op":"enqueue","activity":{"title":"x","key":\#(quoted(chain))}}"#)?.field == "activity.key")
    }

    @Test func c3_tooManyCharactersAreStillCountedInCharacters() {
        let error = failure(#"{"op":"enqueue","activity":{"title":\#(quoted(String(repeating: "é", count: 513)))}}"#)
        #expect(error?.message == "is 513 characters long; at most 512 are allowed")
    }

    @Test func r4_aHomeStatusTextIsBoundedAsATitleIs() {
        #expect(failure(#"{"op":"home","content":"text","text":\#(quoted(stacked(1100)))}"#)?.message
            == "is 2201 bytes long in UTF-8; at most 2048 are allowed")
        #expect(failure(#"{"op":"home","content":"text","text":\#(quoted(stacked(40)))}"#)?.field == "text")
        #expect(failure(#"{"op":"home","content":"text","text":""}"#)?.message == "must not be empty")
        guard case .success(let request) = decode(#"{"op":"home","content":"text","text":\#(quoted(stacked(31)))}"#) else {
            Issue.record("a character of 32 scalars refused")
            return
        }
        #expect(request.operation == .home(.text(stacked(31))))
    }

    @Test func e8_aGlanceLineIsBoundedInBytesAndScalars() {
        // One character of 32 scalars, 63 bytes: over the 32 bytes a cell of a 1-wide grid.
        let overBytes = failure(#"{"op":"glance","glance":{"columns":1,"rows":1,"lines":[\#(quoted(stacked(31)))]}}"#)
        #expect(overBytes?.field == "glance.lines[0]")
        #expect(overBytes?.message == "is 63 bytes long in UTF-8; at most 32 are allowed")
        guard case .success = decode(#"{"op":"glance","glance":{"columns":2,"rows":1,"lines":[\#(quoted(stacked(31)))]}}"#) else {
            Issue.record("a line within the limits refused")
            return
        }
        let stack = failure(#"{"op":"glance","glance":{"columns":4,"rows":1,"lines":[\#(quoted(stacked(40)))]}}"#)
        #expect(stack?.field == "glance.lines[0]")
        #expect(stack?.message.hasPrefix("character 1 is made of 41 Unicode scalars") == true)
    }

    @Test func c3_clampingCutsEachUnitAndEndsInAnEllipsis() throws {
        let limit = NookActivity.Limits.title
        let hostile = limit.clamped(stacked(31_000))
        #expect(limit.problem(with: hostile) == nil)
        #expect(hostile.unicodeScalars.count == NookTextLimit.scalarsPerCharacter)
        let long = limit.clamped(String(repeating: "👩‍👩‍👧‍👦", count: 200))
        #expect(limit.problem(with: long) == nil)
        #expect(long.hasSuffix("…"))
        #expect(long.utf8.count <= 2048 && long.utf8.count > 2048 - 25 - 3)
        #expect(limit.clamped("Build finished") == "Build finished")
    }
}
