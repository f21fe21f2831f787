import NookActivities
import NookProtocol
import Testing

/// Text is bounded in characters (code points, as JSON Schema's `maxLength` counts them), in bytes
/// and in scalars per character wherever it enters, so one character of thousands of combining
/// marks (tens of KiB) is refused like a long title.
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

    @Test func c3_aTitleOfOneCharacterOfThousandsOfMarksIsRefusedNamingTheFieldAndItsCodePoints() {
        let title = stacked(31_000)
        #expect(title.count == 1)
        let error = failure(#"{"op":"enqueue","activity":{"title":\#(quoted(title))}}"#)
        #expect(error?.code == .invalid)
        #expect(error?.field == "activity.title")
        #expect(error?.message == "is 31001 characters (Unicode code points) long; at most 512 are allowed")
    }

    @Test func c3_anIconPathOverTheByteLimitIsRefusedInBytes() {
        // 1,500 code points, 4,500 bytes: a path is bounded by PATH_MAX in bytes.
        let path = "/" + String(repeating: "€", count: 1_499)
        let error = failure(#"{"op":"enqueue","activity":{"title":"x","icon":\#(quoted(path))}}"#)
        #expect(error?.field == "activity.icon")
        #expect(error?.message == "is 4498 bytes long in UTF-8; at most 4096 are allowed")
    }

    @Test func c3_anUpdateOverTheLimitIsRefusedNamingTheChangedField() {
        let id = NookActivityID()
        let title = String(repeating: "a\u{301}", count: 200)  // 200 characters a person sees, 400 code points
        let subtitle = String(repeating: stacked(20), count: 50)  // 50 characters a person sees, 1,050 code points
        let error = failure(#"{"op":"update","activity":"\#(id)","changes":{"title":\#(quoted(title)),"subtitle":\#(quoted(subtitle))}}"#)
        #expect(error?.field == "changes.subtitle")
        #expect(error?.message == "is 1050 characters (Unicode code points) long; at most 1024 are allowed")
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

    @Test func c3_charactersAreCountedInCodePointsAsJSONSchemaCountsThem() {
        let error = failure(#"{"op":"enqueue","activity":{"title":\#(quoted(String(repeating: "é", count: 513)))}}"#)
        #expect(error?.message == "is 513 characters (Unicode code points) long; at most 512 are allowed")
        // A letter and a combining mark (what schemathesis sent: a spacing mark after a letter)
        // is one character on the glass but two code points: the OpenAPI file's maxLength of
        // 512 counts two, so nookd does, and every title it answers with matches the file.
        let decomposed = String(repeating: "e\u{301}", count: 257)
        #expect(decomposed.count == 257 && decomposed.unicodeScalars.count == 514)
        #expect(failure(#"{"op":"enqueue","activity":{"title":\#(quoted(decomposed))}}"#)?.message
            == "is 514 characters (Unicode code points) long; at most 512 are allowed")
        // 512 code points of four bytes each: at both limits, refused by neither.
        let astral = String(repeating: "😀", count: 512)
        guard case .success = decode(#"{"op":"enqueue","activity":{"title":\#(quoted(astral))}}"#) else {
            Issue.record("512 emoji refused")
            return
        }
    }

    @Test func r4_aHomeStatusTextIsBoundedAsATitleIs() {
        #expect(failure(#"{"op":"home","content":"text","text":\#(quoted(stacked(1100)))}"#)?.message
            == "is 1101 characters (Unicode code points) long; at most 512 are allowed")
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
        // Seven code points a family: cut at a family, 73 of them and the ellipsis.
        let long = limit.clamped(String(repeating: "👩‍👩‍👧‍👦", count: 200))
        #expect(limit.problem(with: long) == nil)
        #expect(long.hasSuffix("…"))
        #expect(long.unicodeScalars.count == 73 * 7 + 1)
        #expect(limit.clamped("Build finished") == "Build finished")
    }
}
