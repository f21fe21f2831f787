@testable import NookHTTP
import Testing

/// A published message without a title becomes a card's title (its first line) and subtitle
/// (the rest) the same way whatever its text (H2). ASCII text is split as bytes, and must split
/// as its characters do.
@Suite("H2 a message's lines as title and subtitle")
struct PublishTextLinesTests {
    @Test func h2_anASCIIMessageSplitsIntoLinesAsItsCharactersDo() {
        let alphabet: [UInt8] = Array(0..<0x80) + [0x0A, 0x0A, 0x0D, 0x0D, 0x0B, 0x0C, 0x20, 0x20, 0x09]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(PublishText.lines(of: text) == text.split(whereSeparator: \.isNewline), "\(bytes)")
        }
    }

    @Test func h2_aMessagesFirstLineIsTheTitleAndTheRestTheSubtitle() {
        let (title, subtitle) = PublishText.titleAndSubtitle(title: nil, message: "\r\n  Backup done \r\n\r\n 12 GiB\u{0B}in 3 min  ")
        #expect(title == "Backup done" && subtitle == "12 GiB in 3 min")
        let (titled, body) = PublishText.titleAndSubtitle(title: " Backup\n", message: "Caf\u{E9}\u{2028}ouvert")
        #expect(titled == "Backup" && body == "Caf\u{E9} ouvert")
        #expect(PublishText.lines(of: "Caf\u{E9}\u{2028}ouvert\u{85}") == ["Caf\u{E9}", "ouvert"])
    }
}
