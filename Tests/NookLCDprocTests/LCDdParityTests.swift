import Foundation
import NookActivities
import NookLCDproc
import NookTestSupport
import NookTestTraits
import Testing

/// E8: what a client can see, byte for byte, from a real LCDd 0.5.9 and from nook-lcdproc on
/// the same bytes, sent in steps with a pause after each so every frame-driven notice
/// (`listen`, `ignore`) has come before the next step.
@Suite("E8 nook-lcdproc against LCDd, step by step", .serialized, .ownThreads)
struct LCDdParityTests {
    static func converse(_ steps: [[UInt8]], port: UInt16) throws -> [UInt8] {
        let connection = try TCPConnection(port: port)
        var received: [UInt8] = []
        for step in steps {
            try connection.send(step)
            received += connection.readUntilQuiet(quiet: 1.5)
        }
        return received
    }

    /// The bytes as text a reader can compare: non-ASCII bytes as \xNN.
    static func shown(_ bytes: [UInt8]) -> String {
        bytes.map { $0 >= 0x80 ? "\\x" + String($0, radix: 16) : String(UnicodeScalar($0)) }.joined()
    }

    func compare(_ steps: [[UInt8]], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reference = try LCDdReference()
        let expected = try Self.converse(steps, port: reference.port)
        let bridge = try Bridge(withNookd: false)
        let ours = try Self.converse(steps, port: bridge.port)
        #expect(Self.shown(ours) == Self.shown(expected), sourceLocation: sourceLocation)
    }

    @Test func e8_theShownScreenHearsIgnoreWhenDeletedTimedOutOrItsClientSaysBye() throws {
        try compare([
            Array("hello\nscreen_add s\nwidget_add s t string\n".utf8),
            Array("screen_del s\n".utf8),                             // ignore s, success
            Array("screen_add u\nscreen_set u -timeout 4\n".utf8),   // listen u; half a second later ignore u
            Array("screen_add v\n".utf8),
            Array("bye\n".utf8),                                      // ignore v, then the connection closes
        ])
    }

    @Test func e8_bytesThatAreNotUTF8AreEchoedBackAsTheClientSentThem() throws {
        // Each line as a list of pieces joined, not a chain of `+`: Swift 6.0's type checker gave up on those.
        func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }
        let pieces: [[[UInt8]]] = [
            [utf8("hello\nscreen_add caf"), [0xE9], utf8("\nwidget_add caf"), [0xE9], utf8(" t string\n")],
            [utf8("screen_add s"), [0xC3, 0xA9], utf8("\nfoo"), [0xE9, 0xFF], utf8("\nwidget_del caf"), [0xE9], utf8(" n"), [0xE9], utf8("\n")],
            [utf8("screen_del caf"), [0xE9], utf8("\n")],
        ]
        try compare(pieces.map { Array($0.joined()) })
    }

    @Test func e8_keysTheMenuHoldsAreRefusedAsLCDdWithItsFourMenuKeysRefusesThem() throws {
        // LCDd reserves its [menu] keys at start: the menu key exclusively, Enter, Up and Down
        // shared. So no client may have the menu key, and the others only shared; a refused key
        // does not stop the rest of the line, and the answer is still `success`.
        try compare([
            Array("hello\nclient_add_key -exclusively Up\nclient_add_key Up\nclient_add_key -shared Enter\n".utf8),
            Array("client_add_key -exclusively Escape\nclient_add_key Escape\nclient_add_key -exclusively Down Left Enter\n".utf8),
            Array("client_del_key Up\nclient_add_key -exclusively Up\nclient_add_key Down\n".utf8),
        ])
    }

    @Test func e8_menuGotoAnswersBeforeIgnoreAndDeletingTheOpenMenuLeavesTheMenuOpen() throws {
        try compare([
            Array("hello\nclient_set -name c\nscreen_add s\nwidget_add s t string\nmenu_add_item \"\" m menu M\nmenu_add_item m a action A\nmenu_add_item \"\" b action B\n".utf8),
            Array("menu_goto m\n".utf8),            // menuevent enter m, success, ignore s
            Array("menu_del_item \"\" m\n".utf8),   // the menu goes up to the client's menu
            Array("menu_del_item \"\" b\n".utf8),   // the client's menu is gone; the menu stays open
            Array("noop\n".utf8),
        ])
    }
}

/// E8 on hand-moved frames: lcdproc's big digits and cards of screens raised early.
@Suite("E8 LCDproc composition and cards")
struct LCDComposeTests {
    @Test func e8_aNumOfElevenDrawsNothingAsLCDdBlanksTheBigClocksColon() {
        let model = LCDServerModel(grid: LCDGrid(width: 20, height: 3))
        let client = model.connect()
        for line in ["hello", "screen_add s", "widget_add s n num", "widget_set s n 7 10", "widget_add s d num", "widget_set s d 4 9"] {
            model.receive(Array(line.utf8), from: client)
        }
        model.advance(toFrame: 1)
        #expect(model.glance()?.lines[1] == "   9  :")
        model.receive(Array("widget_set s n 7 11".utf8), from: client)
        #expect(model.glance()?.lines[1] == "   9")
        model.receive(Array("widget_set s n 7 12".utf8), from: client)
        #expect(model.glance()?.lines[1] == "   9")
    }

    @Test func e8_aScreenRaisedBeforeItsWidgetsWaitsForThemToBecomeACard() throws {
        let model = LCDServerModel(grid: LCDGrid(width: 20, height: 2))
        let client = model.connect()
        func send(_ lines: String...) { for line in lines { model.receive(Array(line.utf8), from: client) } }
        send("hello", "client_set -name door", "screen_add s", "screen_set s -priority foreground")
        model.advance(toFrame: 4)
        #expect(model.takeCards().isEmpty)
        send("widget_add s t title")
        model.advance(toFrame: 8)
        #expect(model.takeCards().isEmpty)
        send("widget_set s t {Doorbell}", "widget_add s l string", "widget_set s l 1 2 {Front door}")
        model.advance(toFrame: 9)
        let cards = model.takeCards()
        #expect(cards.map(\.title) == ["Doorbell"])
        #expect(cards.first?.subtitle == "Front door")
    }

    @Test func e8_textFromAnEightBitClientIsDrawnAsLatin1() {
        let model = LCDServerModel(grid: LCDGrid(width: 20, height: 2))
        let client = model.connect()
        for line in [Array("hello".utf8), Array("screen_add s".utf8), Array("widget_add s t string".utf8),
                     Array("widget_set s t 1 1 {Gr".utf8) + [0xFC, 0xDF, 0x65] + Array("}".utf8)] {
            model.receive(line, from: client)
        }
        model.advance(toFrame: 1)
        #expect(model.glance()?.lines.first == "Grüße")
    }
}
