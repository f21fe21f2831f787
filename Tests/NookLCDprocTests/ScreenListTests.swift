import NookActivities
import NookLCDproc
import Testing

/// E8: screens rotate by duration and priority as LCDd's `screenlist_process` does, in frames
/// of 1/8 s that the test moves by hand; `alert` and `foreground` screens become cards.
@Suite("E8 LCDproc screen list")
struct ScreenListTests {
    final class Session {
        static let small: LCDLimits = {
            var limits = LCDLimits()
            limits.screens = 3
            limits.widgetsPerScreen = 2
            limits.textCharacters = 30
            return limits
        }()
        let model: LCDServerModel
        let client: LCDClientID

        init(name: String = "test", limits: LCDLimits = LCDLimits()) {
            model = LCDServerModel(grid: LCDGrid(width: 20, height: 2), limits: limits)
            client = model.connect()
            send("hello", "client_set -name \(name)")
        }

        @discardableResult
        func send(_ lines: String...) -> [String] {
            for line in lines { model.receive(Array(line.utf8), from: client) }
            return model.takeOutput().map(\.line)
        }

        func screen(_ id: String, _ text: String, priority: String = "info", duration: Int = 8) {
            send("screen_add \(id)", "screen_set \(id) -priority \(priority) -duration \(duration)",
                 "widget_add \(id) s string", "widget_set \(id) s 1 1 {\(text)}")
        }

        var shown: String? { model.glance()?.lines.first }
    }

    @Test func e8_screensRotateAfterTheirDurationInTheOrderAdded() {
        let session = Session()
        session.screen("a", "first", duration: 8)
        session.screen("b", "second", duration: 16)
        #expect(session.shown == nil)                    // nothing before the first frame
        session.model.advance(toFrame: 1)
        #expect(session.shown == "first")
        #expect(session.model.takeOutput().map(\.line) == ["listen a"])
        session.model.advance(toFrame: 8)
        #expect(session.shown == "first")
        session.model.advance(toFrame: 9)                 // 8 frames after it was shown
        #expect(session.shown == "second")
        #expect(session.model.takeOutput().map(\.line) == ["ignore a", "listen b"])
        session.model.advance(toFrame: 24)
        #expect(session.shown == "second")
        session.model.advance(toFrame: 25)
        #expect(session.shown == "first")
    }

    @Test func e8_aHigherClassTakesOverAtOnceAndBackgroundNeverRotates() {
        let session = Session()
        session.screen("a", "info screen")
        session.screen("b", "background", priority: "background")
        session.model.advance(toFrame: 1)
        #expect(session.shown == "info screen")
        session.model.advance(toFrame: 100)
        #expect(session.shown == "info screen")          // nothing of the same class to rotate to
        session.screen("c", "foreground", priority: "foreground")
        session.model.advance(toFrame: 101)
        #expect(session.shown == "foreground")
        session.send("screen_set c -priority hidden")
        session.model.advance(toFrame: 102)
        #expect(session.shown == "info screen")          // the hidden one rotates away
        session.send("screen_del a")
        session.model.advance(toFrame: 103)
        #expect(session.shown == "background")
        session.send("screen_del b", "screen_del c")
        session.model.advance(toFrame: 104)
        #expect(session.model.glance() == nil)           // no screens: nookd gets its own home back
    }

    @Test func e8_aTimeoutRemovesTheScreenAfterItWasShownThatLong() {
        let session = Session()
        session.screen("a", "stays")
        session.screen("t", "brief", priority: "foreground")
        session.send("screen_set t -timeout 4")
        session.model.advance(toFrame: 1)
        #expect(session.shown == "brief")
        session.model.advance(toFrame: 5)
        #expect(session.shown == "stays")
        // Its client heard `ignore` as it went, as from LCDd.
        #expect(session.send("screen_del t").filter { !$0.hasPrefix("listen ") } == ["ignore t", "huh? Unknown screen id"])
    }

    @Test func e8_alertAndForegroundScreensBecomeCardsOncePerStay() throws {
        let session = Session(name: "mpd")
        session.send("screen_add p", "widget_add p t title", "widget_set p t {Now playing}", "widget_add p s string",
                     "widget_set p s 1 2 {Blue in Green}", "screen_set p -priority alert")
        session.model.advance(toFrame: 1)
        let cards = session.model.takeCards()
        #expect(cards.count == 1)
        let card = try #require(cards.first)
        #expect(card.title == "Now playing" && card.subtitle == "Blue in Green" && card.priority == .high)
        #expect(card.coalescingKey == "lcdproc:mpd:p")
        try card.validate()
        session.model.advance(toFrame: 50)
        #expect(session.model.takeCards().isEmpty)       // once per stay, not per frame
        session.send("screen_set p -priority info")
        session.send("screen_set p -priority foreground")
        session.model.advance(toFrame: 51)
        #expect(session.model.takeCards().map(\.priority) == [.normal])
    }

    @Test func e8_perClientLimitsAnswerAsLCDdsErrorsDo() {
        let session = Session(limits: Session.small)
        #expect(session.send("screen_add 1", "screen_add 2", "screen_add 3", "screen_add 4") ==
                ["success", "success", "success", "huh? failed to add screen (at most 3 per client)"])
        #expect(session.send("widget_add 1 a string", "widget_add 1 b string", "widget_add 1 c string") ==
                ["success", "success", "huh? Error adding widget (at most 2 per screen)"])
        session.send("widget_set 1 a 1 1 {\(String(repeating: "x", count: 100))}")
        session.model.advance(toFrame: 1)
        #expect(session.model.glance()?.lines.first == String(repeating: "x", count: 20))  // cut to the grid
        // Another client has limits of its own.
        let other = session.model.connect()
        session.model.receive(Array("hello".utf8), from: other)
        session.model.receive(Array("screen_add 1".utf8), from: other)
        #expect(session.model.takeOutput().map(\.line).last == "success")
        // A client that goes takes its screens with it.
        session.model.disconnect(session.client)
        #expect(session.model.screenCount == 1)
    }

    @Test func e8_theGlanceHasTheWidgetsWhereLCDdPutsThem() throws {
        let session = Session()
        session.send("screen_add s", "widget_add s t title", "widget_set s t {Load}", "widget_add s b hbar", "widget_set s b 3 2 25",
                     "widget_add s i icon", "widget_set s i 20 2 heart_filled", "widget_add s v vbar", "widget_set s v 19 2 12",
                     "widget_add s f frame", "widget_set s f 1 2 2 2 2 2 v 1", "widget_add s in string -in f", "widget_set s in 1 1 {ABCD}")
        session.model.advance(toFrame: 1)
        let glance = try #require(session.model.glance())
        try glance.validate()
        #expect(glance.titleRow == 0 && glance.lines[0] == "Load")
        #expect(glance.lines[1] == "AB" + String(repeating: " ", count: 17) + "♥")    // the frame clips its text to 2 cells
        #expect(glance.bars == [NookGlance.Bar(row: 1, column: 2, length: 5, direction: .horizontal),
                                NookGlance.Bar(row: 1, column: 18, length: 1.5, direction: .vertical)])
    }
}

/// E8: random command lines built from the protocol's own words, on a fixed seed, through the
/// model with time moving: nothing crashes, every glance and card is one nookd accepts. (It
/// found a title or string in a frame placed at column or row 0 indexing off the grid.)
@Suite("E8 LCDproc model under random commands")
struct RandomCommandTests {
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test func e8_randomCommandsNeverBreakTheModel() throws {
        let words = ["screen_add", "screen_del", "screen_set", "widget_add", "widget_del", "widget_set", "a", "b", "w", "f", "t",
                     "string", "title", "hbar", "vbar", "icon", "scroller", "frame", "num", "-in", "-priority", "alert", "foreground",
                     "info", "hidden", "-timeout", "-duration", "0", "1", "2", "3", "40", "99", "-5", "h", "v", "m", "{x y}", "\"é\"",
                     "HEART_OPEN", "menu_add_item", "\"\"", "menu", "action", "client_add_key", "Up", "-1", "2147483648"]
        var random = SplitMix(state: 22)
        let model = LCDServerModel(grid: LCDGrid(width: 20, height: 4))
        let client = model.connect()
        model.receive(Array("hello".utf8), from: client)
        model.receive(Array("client_set -name r".utf8), from: client)
        for step in 0..<10_000 {
            let count = Int.random(in: 1...10, using: &random)
            let line = (0..<count).map { _ in words.randomElement(using: &random)! }.joined(separator: " ")
            model.receive(Array(line.utf8), from: client)
            _ = model.takeOutput()
            if step % 7 == 0 { model.advance(toFrame: model.frame + 1) }
            if let glance = model.glance() { try glance.validate() }
            for card in model.takeCards() { try card.validate() }
        }
        model.disconnect(client)
        #expect(model.screenCount == 0)
    }
}
