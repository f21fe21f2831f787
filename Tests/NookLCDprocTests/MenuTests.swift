import NookActivities
import NookLCDproc
import Testing

/// E8: the server menu, on hand-moved frames: LCDd's menu keys (Escape opens, Enter selects,
/// Up/Down move), its `menuevent` texts, Nook's two-key mode and the menu's timeout.
@Suite("E8 LCDproc server menu")
struct MenuTests {
    final class Server {
        let model: LCDServerModel

        init(twoKeys: Bool = false, timeoutFrames: Int = 240, grid: LCDGrid = LCDGrid(width: 20, height: 4)) {
            model = LCDServerModel(grid: grid)
            model.menuSettings.twoKeys = twoKeys
            model.menuSettings.timeoutFrames = timeoutFrames
        }

        func connect(_ lines: String...) -> LCDClientID {
            let id = model.connect()
            for line in ["hello"] + lines { model.receive(Array(line.utf8), from: id) }
            _ = model.takeOutput()
            return id
        }

        /// What a client line answered.
        func send(_ line: String, from id: LCDClientID) -> [String] {
            model.receive(Array(line.utf8), from: id)
            return model.takeOutput().map(\.line)
        }

        /// What the presses sent, as `CLIENT: LINE`.
        func press(_ keys: String...) -> [String] {
            for key in keys { model.press(key: key) }
            return model.takeOutput().map { "\($0.client.rawValue): \($0.line)" }
        }

        var lines: [String] { model.glance()?.lines ?? [] }
    }

    /// lcdexec's menu as it builds it (`menu_add_item "" "1" action "…"`, `-menu_result quit`).
    static let lcdexec = [
        "client_set -name {lcdexec host}", "menu_add_item \"\" \"1\" action \"Say hello\"", "menu_set_item \"\" \"1\" -menu_result quit",
        "menu_add_item \"\" \"2\" menu \"More\"", "menu_add_item \"2\" \"3\" action \"Date\"", "menu_set_item \"2\" \"3\" -menu_result quit",
    ]

    @Test func e8_theMenuKeyOpensTheMenuAndEnterOnAnActionSendsSelect() throws {
        let server = Server()
        let client = server.connect(Self.lcdexec[0], Self.lcdexec[1], Self.lcdexec[2], Self.lcdexec[3], Self.lcdexec[4], Self.lcdexec[5])
        #expect(!server.model.menuIsOpen)
        #expect(server.press("Escape").isEmpty)
        #expect(server.model.menuIsOpen)
        #expect(server.lines == ["LCDproc Menu", "▸ lcdexec host     ›", "", ""])
        #expect(server.model.glance()?.highlightRow == 1)
        #expect(server.press("Enter") == ["\(client.rawValue): menuevent enter _client_menu_"])
        #expect(server.lines == ["lcdexec host", "▸ Say hello", "  More             ›", ""])
        // Down wraps round; Enter on a menu enters it.
        #expect(server.press("Down", "Down", "Down").isEmpty)
        #expect(server.model.glance()?.highlightRow == 2)
        #expect(server.press("Enter") == ["\(client.rawValue): menuevent leave _client_menu_", "\(client.rawValue): menuevent enter 2"])
        #expect(server.lines == ["More", "▸ Date", "", ""])
        // The action: select, then (-menu_result quit) the menu closes, leaving its level.
        #expect(server.press("Enter") == ["\(client.rawValue): menuevent select 3", "\(client.rawValue): menuevent leave 2"])
        #expect(!server.model.menuIsOpen)
        #expect(server.model.glance() == nil)
        try server.model.glance().map { try $0.validate() }
    }

    @Test func e8_escapeGoesBackAndClosesAtTheTop() {
        let server = Server()
        let client = server.connect(Self.lcdexec[0], Self.lcdexec[3], Self.lcdexec[4])
        _ = server.press("Escape", "Enter", "Enter")
        #expect(server.lines.first == "More")
        #expect(server.press("Escape") == ["\(client.rawValue): menuevent leave 2", "\(client.rawValue): menuevent enter _client_menu_"])
        // Back in the client's menu, More is still the entry selected.
        #expect(server.lines == ["lcdexec host", "▸ More             ›", "", ""])
        #expect(server.press("Escape") == ["\(client.rawValue): menuevent leave _client_menu_"])
        #expect(server.lines.first == "LCDproc Menu")
        #expect(server.press("Escape").isEmpty)
        #expect(!server.model.menuIsOpen)
    }

    @Test func e8_checkboxAndRingToggleWithUpdateEventsAsLCDdSendsThem() {
        let server = Server()
        let client = server.connect("client_set -name c", "menu_add_item \"\" cb checkbox {Wifi} -value on",
                                    "menu_add_item \"\" r ring {Mode} -strings {Off\\tEco\\tMax} -value 1",
                                    "menu_add_item \"\" g checkbox {Gray} -allow_gray true")
        _ = server.press("Escape", "Enter")
        #expect(server.lines == ["c", "▸ Wifi             ☑", "  Mode           Eco", "  Gray             ☐"])
        #expect(server.press("Enter") == ["\(client.rawValue): menuevent update cb off"])
        #expect(server.lines[1] == "▸ Wifi             ☐")
        #expect(server.press("Down", "Enter", "Enter", "Enter") == ["\(client.rawValue): menuevent update r 2", "\(client.rawValue): menuevent update r 0", "\(client.rawValue): menuevent update r 1"])
        #expect(server.press("Down", "Enter", "Enter", "Enter") == ["\(client.rawValue): menuevent update g on", "\(client.rawValue): menuevent update g gray", "\(client.rawValue): menuevent update g off"])
        // Toggles keep the menu open (their default result is none).
        #expect(server.model.menuIsOpen)
    }

    @Test func e8_aSliderMovesWithPlusAndMinusEvents() {
        let server = Server()
        let client = server.connect("client_set -name c", "menu_add_item \"\" s slider {Volume} -mintext lo -maxtext hi -minvalue 0 -maxvalue 10 -stepsize 4 -value 6")
        _ = server.press("Escape", "Enter")
        #expect(server.press("Enter") == ["\(client.rawValue): menuevent leave _client_menu_", "\(client.rawValue): menuevent enter s"])
        #expect(server.lines == ["Volume", "lo                hi", "         6", ""])
        #expect(server.model.glance()?.bars.first?.length ?? 0 > 0)
        #expect(server.press("Up", "Up", "Down") == ["\(client.rawValue): menuevent plus s 10", "\(client.rawValue): menuevent plus s 10", "\(client.rawValue): menuevent minus s 6"])
        // Enter leaves the slider (LCDd's default result for it is close).
        #expect(server.press("Enter") == ["\(client.rawValue): menuevent leave s", "\(client.rawValue): menuevent enter _client_menu_"])
    }

    @Test func e8_twoKeysTheMenuKeyMovesAndABackEntryGoesUp() {
        let server = Server(twoKeys: true)
        let client = server.connect(Self.lcdexec[0], Self.lcdexec[1], Self.lcdexec[2], Self.lcdexec[3], Self.lcdexec[4], Self.lcdexec[5])
        _ = server.press("Escape")
        #expect(server.lines == ["LCDproc Menu", "▸ lcdexec host     ›", "  Close            ‹", ""])
        // Escape moves to Close; Enter there closes the menu.
        _ = server.press("Escape")
        #expect(server.model.glance()?.highlightRow == 2)
        _ = server.press("Enter")
        #expect(!server.model.menuIsOpen)
        // Open, enter lcdexec's menu, move to More, enter it, Back, then to Say hello and run it.
        _ = server.press("Escape", "Enter", "Escape", "Enter")
        #expect(server.lines == ["More", "▸ Date", "  Back             ‹", ""])
        _ = server.press("Escape", "Enter")
        #expect(server.lines.first == "lcdexec host")
        #expect(server.press("Escape", "Escape", "Enter").suffix(2) == ["\(client.rawValue): menuevent select 1", "\(client.rawValue): menuevent leave _client_menu_"])
        #expect(!server.model.menuIsOpen)
    }

    @Test func e8_theMenuClosesAfterItsTimeoutAndTheScreensComeBack() {
        let server = Server(timeoutFrames: 16)
        let client = server.connect("client_set -name c", "menu_add_item \"\" a action {Run}", "screen_add s", "widget_add s t title", "widget_set s t {Clock}")
        server.model.advance(toFrame: 1)
        #expect(server.model.takeOutput().map(\.line) == ["listen s"])
        // Opened over the client's screen, which is told to stop listening.
        #expect(server.press("Escape") == ["\(client.rawValue): ignore s"])
        server.model.advance(toFrame: 10)
        #expect(server.press("Down").isEmpty)  // a key starts the time again
        server.model.advance(toFrame: 25)
        #expect(server.model.menuIsOpen)
        server.model.advance(toFrame: 26)
        #expect(!server.model.menuIsOpen)
        #expect(server.model.takeOutput().map(\.line) == ["listen s"])
        #expect(server.lines.first == "Clock")
    }

    @Test func e8_aMenuKeyAClientSharesGoesToItWhileItsScreenIsShownAndToTheOpenMenu() {
        let server = Server()
        let holder = server.connect("client_add_key Enter", "screen_add s", "widget_add s t title", "widget_set s t {Holder}")
        let menu = server.connect("client_set -name m", "menu_add_item \"\" a action {Run}")
        server.model.advance(toFrame: 1)
        _ = server.model.takeOutput()
        #expect(server.press("Enter") == ["\(holder.rawValue): key Enter"])
        #expect(server.press("Escape") == ["\(holder.rawValue): ignore s"])
        #expect(server.model.menuIsOpen)
        #expect(server.press("Enter") == ["\(menu.rawValue): menuevent enter _client_menu_"])
        #expect(server.lines[0] == "m")
    }

    @Test func e8_withoutAClientMenuTheMenuKeyOpensNothing() {
        let server = Server()
        _ = server.connect("client_set -name x")
        #expect(server.press("Escape").isEmpty)
        #expect(!server.model.menuIsOpen)
    }

    @Test func e8_deletingWhatIsShownGoesUpAndAGoneClientsMenuGoes() {
        let server = Server()
        let client = server.connect("client_set -name c", "menu_add_item \"\" m menu {Sub}", "menu_add_item m n menu {Subsub}", "menu_add_item n a action {Deep}")
        let other = server.connect("client_set -name other", "menu_add_item \"\" b action {B}")
        #expect(server.send("menu_goto n", from: client) == ["menuevent enter n", "success"])
        #expect(server.lines.first == "Subsub")
        // Deleting m takes n and a with it; the menu goes up to m's parent, the client's menu.
        #expect(server.send("menu_del_item \"\" m", from: client) == ["menuevent leave n", "menuevent enter _client_menu_", "menuevent leave _client_menu_", "success"])
        #expect(server.send("menu_set_item \"\" a -text x", from: client) == ["huh? Cannot find menu id"])
        #expect(server.send("menu_add_item n z action {z}", from: client) == ["huh? Cannot find menu id"])
        // The client's last item went with m: its menu went too, and the main menu is shown.
        // (As in LCDd, menu_add_item gave the client an empty menu again before it refused.)
        #expect(server.lines == ["LCDproc Menu", "▸ c                ›", "  other            ›", ""])
        server.model.disconnect(client)
        #expect(server.lines == ["LCDproc Menu", "▸ other            ›", "", ""])
        #expect(server.press("Enter") == ["\(other.rawValue): menuevent enter _client_menu_"])
        // The client whose menu is shown goes: no menu is left, so the menu closes.
        server.model.disconnect(other)
        #expect(!server.model.menuIsOpen)
    }

    @Test func e8_badMenuCommandsAreRefusedAndDeepOrHugeMenusAreSafe() throws {
        let server = Server(grid: LCDGrid(width: 40, height: 4))
        let client = server.connect("client_set -name big")
        // An item cannot be its own parent: it does not exist when it is named as one.
        #expect(server.send("menu_add_item self self menu {Loop}", from: client) == ["huh? Cannot find menu id"])
        #expect(server.send("menu_set_item \"\" ghost -text x", from: client) == ["huh? Cannot find item"])
        #expect(server.send("menu_goto ghost", from: client) == ["huh? Cannot find menu id"])
        #expect(server.send("menu_del_item \"\" ghost", from: client) == ["huh? Cannot find item"])
        // 255 menus, each in the one before, and an action at the bottom: the item limit (256).
        var parent = ""
        for level in 0..<255 {
            #expect(server.send("menu_add_item {\(parent)} m\(level) menu {Level \(level)}", from: client) == ["success"])
            parent = "m\(level)"
        }
        #expect(server.send("menu_add_item m254 last action {Bottom}", from: client) == ["success"])
        #expect(server.send("menu_add_item \"\" more action {x}", from: client) == ["huh? Cannot create menu (at most 256 items)"])
        #expect(server.send("menu_goto m254", from: client).last == "success")
        #expect(server.lines == ["Level 254", "▸ Bottom", "", ""])
        // Escape climbs every level back to the top, then closes.
        for _ in 0..<257 { _ = server.press("Escape") }
        #expect(!server.model.menuIsOpen)
        // Text that is too long for a row, or has line breaks, is cut to the row.
        #expect(server.send("menu_set_item m254 last -text {\(String(repeating: "x", count: 1000))\\nnext}", from: client) == ["success"])
        _ = server.send("menu_goto m254", from: client)
        let glance = try #require(server.model.glance())
        try glance.validate()
        #expect(glance.lines[1].count == 40 && glance.lines[1].hasSuffix("x…"))
        // Deleting the root of the chain deletes all of it at once.
        #expect(server.send("menu_del_item \"\" m0", from: client).last == "success")
        // The client's menu went with it; the menu stays open at its top, as LCDd's does.
        #expect(server.model.menuIsOpen && server.lines.first == "LCDproc Menu")
        _ = server.press("Escape")
        #expect(!server.model.menuIsOpen)
        #expect(server.send("menu_del_item \"\" m0", from: client) == ["huh? Client has no menu"])
    }

    @Test func e8_aTinyGridStillShowsTheSelectedEntry() throws {
        let server = Server(grid: LCDGrid(width: 3, height: 1))
        _ = server.connect("client_set -name longname", "menu_add_item \"\" a action {Run}")
        _ = server.press("Escape")
        let glance = try #require(server.model.glance())
        try glance.validate()
        #expect(glance.lines == ["lo…"])
        #expect(glance.highlightRow == 0)
    }
}

extension MenuTests {
    /// What the golden image `glance-menu-1280x400-dark.png` (NookRenderTests) shows.
    @Test func e8_theMenuAsTheGoldenImageShowsIt() throws {
        let server = Server(twoKeys: true, grid: LCDGrid(width: 40, height: 4))
        _ = server.connect("client_set -name {lcdexec myhost}", "menu_add_item \"\" 1 action {Touch it}", "menu_add_item \"\" 2 menu More",
                           "menu_add_item 2 3 action {Date}")
        _ = server.press("Escape", "Enter")
        let glance = try #require(server.model.glance())
        #expect(glance == NookGlance(columns: 40, rows: 4, lines: ["lcdexec myhost", "▸ Touch it", "  More                                 ›", "  Back                                 ‹"],
                                     titleRow: 0, highlightRow: 1, menu: true))
    }
}

extension MenuTests {
    /// Two-key mode comes on when no input of the board becomes Up or Down.
    @Test func e8_twoKeyModeWhenNoInputIsUpOrDown() {
        #expect(LCDMenuSettings.twoKeys(for: LCDKeyMap()))
        #expect(!LCDMenuSettings.twoKeys(for: LCDKeyMap(keys: ["open": "Enter", "dismiss": "Escape", "down": "Down"])))
    }

    /// `menu_set_main` makes the menu open at the client's menu; `_main_` puts LCDd's back.
    @Test func e8_menuSetMainIsWhereTheMenuOpens() {
        let server = Server()
        let client = server.connect("client_set -name c", "menu_add_item \"\" m menu {Settings}", "menu_add_item m a action {A}")
        #expect(server.send("menu_set_main m", from: client) == ["success"])
        #expect(server.press("Escape") == ["\(client.rawValue): menuevent enter m"])
        #expect(server.lines.first == "Settings")
        // Escape at the entry point closes the menu.
        #expect(server.press("Escape") == ["\(client.rawValue): menuevent leave m"])
        #expect(!server.model.menuIsOpen)
        #expect(server.send("menu_set_main _main_", from: client) == ["success"])
        _ = server.press("Escape")
        #expect(server.lines.first == "LCDproc Menu")
    }
}

extension MenuTests {
    /// The only client with a menu hangs up while its menu is shown: the menu closes and the
    /// other client's screen is shown again at once, not a frame later.
    @Test func e8_aGoneClientsOpenMenuClosesAndTheScreensComeBackAtOnce() {
        let server = Server()
        let watcher = server.connect("screen_add s", "widget_add s t title", "widget_set s t {Clock}")
        let menu = server.connect("client_set -name m", "menu_add_item \"\" a action {Run}")
        server.model.advance(toFrame: 1)
        _ = server.model.takeOutput()
        _ = server.press("Escape", "Enter")
        #expect(server.lines.first == "m")
        server.model.disconnect(menu)
        #expect(!server.model.menuIsOpen)
        #expect(server.model.takeOutput().map { "\($0.client.rawValue): \($0.line)" } == ["\(watcher.rawValue): listen s"])
        #expect(server.lines.first == "Clock")
    }
}

extension MenuTests {
    /// Found by the fuzzer: the menu open at its top when the only client with a menu goes
    /// stayed open and empty until its timeout; it closes now. A client that deletes its last
    /// item leaves it open, as LCDd does (the client is still there to see it), and a key closes it.
    @Test func e8_theMainMenuClosesWhenTheLastClientWithAMenuGoes() {
        let server = Server()
        let first = server.connect("client_set -name a", "menu_add_item \"\" x action {X}")
        _ = server.press("Escape")
        #expect(server.model.menuIsOpen)
        #expect(server.send("menu_del_item \"\" x", from: first) == ["success"])
        #expect(server.model.menuIsOpen)
        _ = server.press("Escape")
        #expect(!server.model.menuIsOpen)
        let second = server.connect("client_set -name b", "menu_add_item \"\" y action {Y}")
        _ = server.press("Escape")
        server.model.disconnect(second)
        #expect(!server.model.menuIsOpen)
    }
}

extension MenuTests {
    /// `-next ID` on an entry (a wizard's next step): Enter selects that entry in its menu,
    /// switching there first, as LCDd's handle_successor does.
    @Test func e8_nextGoesToTheNamedEntrySelected() {
        let server = Server()
        let client = server.connect("client_set -name w", "menu_add_item \"\" m menu {Step 1}", "menu_add_item m m2 menu {Step 2}",
                                    "menu_add_item m2 c checkbox {Agree}",
                                    "menu_add_item \"\" x action {Other}", "menu_add_item \"\" y action {Last}", "menu_set_item m2 c -next y")
        _ = server.press("Escape", "Enter", "Enter", "Enter")
        #expect(server.lines.first == "Step 2")
        // Two levels up: the selection lands on Last even though switching there resets it.
        #expect(server.press("Enter") == ["\(client.rawValue): menuevent update c on", "\(client.rawValue): menuevent leave m2", "\(client.rawValue): menuevent enter _client_menu_"])
        #expect(server.lines == ["w", "  Step 1           ›", "  Other", "▸ Last"])
    }

    /// A `-prev` naming an entry deleted since: the menu key still leads out (it did nothing,
    /// and with `menu_timeout = 0` the menu could not be left).
    @Test func e8_aPredecessorDeletedSinceStillLetsTheMenuKeyGoBack() {
        let server = Server(timeoutFrames: 0)
        let client = server.connect("client_set -name p", "menu_add_item \"\" m menu {Sub}", "menu_add_item m a action {Act}",
                                    "menu_add_item \"\" gone action {Gone}", "menu_set_item m a -prev gone")
        _ = server.press("Escape", "Enter", "Enter")
        #expect(server.lines.first == "Sub")
        _ = server.send("menu_del_item \"\" gone", from: client)
        #expect(server.press("Escape") == ["\(client.rawValue): menuevent leave m", "\(client.rawValue): menuevent enter _client_menu_"])
        #expect(server.lines.first == "p")
    }
}
