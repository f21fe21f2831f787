import NookProtocol
import Testing

/// A sender's text becomes a card's one-line title the same way on every bridge (H2, M2): runs of
/// whitespace as one space, the ends trimmed. ASCII text takes a path of its own, by bytes; it
/// must read as the characters' path does.
@Suite("H2 M2 whitespace collapsed into one line")
struct CollapsedWhitespaceTests {
    /// The reading by characters, as every text is read where the bytes' path does not apply.
    func byCharacters(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace || $0.isNewline }).joined(separator: " ")
    }

    @Test func h2_m2_asciiTextReadsAsItsCharactersDo() {
        // Every ASCII byte, whitespace (and "\r\n") oftenest, in random texts of up to 40 bytes.
        let alphabet: [UInt8] = Array(0..<0x80) + [0x20, 0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C, 0x1C, 0x1F]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(text.whitespaceCollapsed == byCharacters(text), "\(bytes)")
        }
    }

    @Test func h2_m2_runsOfWhitespaceBecomeOneSpaceAndTheEndsAreTrimmed() {
        #expect("  Backup\r\n\tdone \u{0B}\u{0C} at  9 ".whitespaceCollapsed == "Backup done at 9")
        #expect(" \n\t ".whitespaceCollapsed == "")
        // Not Unicode's whitespace, though some languages' `isspace` takes them: kept.
        #expect("a\u{1C}b".whitespaceCollapsed == "a\u{1C}b")
    }

    @Test func h2_m2_textBeyondASCIIIsReadByItsCharacters() {
        for text in ["Caf\u{E9}\u{A0}\u{A0}ouvert", "\u{3000}T\u{FC}r\u{2028}offen\u{85}", "a \u{301}b", "\u{1F514}\r\n\u{1F514}"] {
            #expect(text.whitespaceCollapsed == byCharacters(text), "\(text.unicodeScalars.map(\.value))")
        }
        #expect("Caf\u{E9}\u{A0}\u{A0}ouvert".whitespaceCollapsed == "Caf\u{E9} ouvert")
    }
}
