import NookLCDproc
import Testing

/// E8: LCDd 0.5.9's tokenizer (`server/parse.c`), case by case. The transcript test checks the
/// same rules against a running LCDd through its `test_func` command.
@Suite("E8 LCDproc tokenizer")
struct TokenizerTests {
    func split(_ text: String) -> [String]? {
        LCDTokenizer.split(Array(text.utf8))?.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func e8_blanksSeparateArguments() {
        #expect(split("widget_set s w 1 2 text") == ["widget_set", "s", "w", "1", "2", "text"])
        #expect(split("  \ta\t b\r c ") == ["a", "b", "c"])
        #expect(split("   ") == [])
    }

    @Test func e8_quotesAndBraces() {
        #expect(split("a \"b c\" {d e}") == ["a", "b c", "d e"])
        #expect(split("{a\"b}") == ["a\"b"])              // only the opening kind closes
        #expect(split("\"c{d}e\"") == ["c{d}e"])          // braces are literal inside double quotes
        #expect(split("{a{b}c}") == ["a{b", "c}"])        // braces do not nest; } outside a quote is literal
        #expect(split("ab\"c d\"e") == ["abc d", "e"])    // a quote may open mid-argument; closing ends it
        #expect(split("\"\" {} x") == ["", "", "x"])      // empty quoted arguments are arguments
    }

    @Test func e8_backslashEscapes() {
        #expect(split("a\\ b") == ["a b"])
        #expect(split("\\n\\r\\t\\q\\\\") == ["\n\r\t" + "q\\"])
        #expect(split("\"a\\\"b\"") == ["a\"b"])
        #expect(split("{x\\}y}") == ["x}y"])
    }

    @Test func e8_unparsableLines() {
        #expect(split("\"open") == nil)
        #expect(split("{open") == nil)
        #expect(split("trailing\\") == nil)
        let thirtyNine = (1...39).map { "a\($0)" }.joined(separator: " ")
        #expect(split(thirtyNine)?.count == 39)
        #expect(split(thirtyNine + " one-more") == nil)
    }

    @Test func e8_nulEndsTheLine() {
        #expect(LCDTokenizer.split([0x61, 0x00, 0x62]) == [[0x61]])
    }

    @Test func e8_framerSplitsOnLCDdsTerminators() {
        var framer = LCDLineFramer(maximumLineBytes: 16)
        var items: [LCDLineFramer.Item] = []
        framer.append(Array("a\r\nb\0c".utf8), into: &items)
        #expect(items == [.line(Array("a".utf8)), .line(Array("b".utf8))])
        #expect(framer.pendingBytes == 1)
        items = []
        framer.append(Array("d\n\n\n".utf8), into: &items)   // a line split across reads is kept whole
        #expect(items == [.line(Array("cd".utf8))])
    }

    @Test func e8_framerDropsOverlongLinesOnce() {
        var framer = LCDLineFramer(maximumLineBytes: 4)
        var items: [LCDLineFramer.Item] = []
        framer.append(Array("abcdefghij".utf8), into: &items)
        framer.append(Array("klm\nok\n".utf8), into: &items)
        #expect(items == [.tooLong, .line(Array("ok".utf8))])
    }

    @Test func e8_textIsUTF8OrLatin1() {
        #expect(LCDText.decode(Array("Grüße ✓".utf8)) == "Grüße ✓")
        // ISO 8859-1 from an 8-bit client: drawn as such, echoed back as the same bytes.
        let latin1: [UInt8] = [0x47, 0x72, 0xFC, 0xDF, 0x65]
        #expect(LCDText.display(LCDText.decode(latin1)) == "Grüße")
        var echoed: [UInt8] = []
        LCDText.encode(LCDText.decode(latin1), into: &echoed)
        #expect(echoed == latin1)
        #expect(LCDText.decode(latin1) != LCDText.decode(Array("Grüße".utf8)))
    }
}
