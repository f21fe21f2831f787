import NookConfig
import NookLCDproc
import NookProtocol
import Testing

/// E8: Nook's inputs reach LCDproc clients as keys, given as LCDd's `handle_input` gives them.
@Suite("E8 LCDproc keys")
struct KeyTests {
    final class Clients {
        let model = LCDServerModel(grid: LCDGrid(width: 20, height: 2))

        func connect(_ lines: String...) -> LCDClientID {
            let id = model.connect()
            for line in ["hello"] + lines { model.receive(Array(line.utf8), from: id) }
            _ = model.takeOutput()
            return id
        }

        /// What the press sent, as `CLIENT: LINE`.
        func press(_ key: String) -> [String] {
            model.press(key: key)
            return model.takeOutput().map { "\($0.client.rawValue): \($0.line)" }
        }
    }

    @Test func e8_anExclusiveKeyGoesToItsHolderWhateverScreenIsShown() {
        let clients = Clients()
        let holder = clients.connect("client_add_key -exclusively Back")
        let other = clients.connect("screen_add s", "widget_add s t title", "widget_set s t {Other}")
        clients.model.advance(toFrame: 1)
        _ = clients.model.takeOutput()
        #expect(clients.model.shownScreen?.client == other)
        #expect(clients.press("Back") == ["\(holder.rawValue): " + "key Back"])
    }

    @Test func e8_aSharedKeyGoesOnlyToTheClientWhoseScreenIsShown() {
        let clients = Clients()
        let first = clients.connect("client_add_key Enter", "screen_add a", "screen_set a -duration 8", "widget_add a t title", "widget_set a t {A}")
        let second = clients.connect("client_add_key -shared Enter", "screen_add b", "screen_set b -duration 8", "widget_add b t title", "widget_set b t {B}")
        // No screen shown yet: a shared key has nobody to go to.
        #expect(clients.press("Enter").isEmpty)
        clients.model.advance(toFrame: 1)
        _ = clients.model.takeOutput()
        #expect(clients.press("Enter") == ["\(first.rawValue): " + "key Enter"])
        clients.model.advance(toFrame: 9)
        _ = clients.model.takeOutput()
        #expect(clients.model.shownScreen?.client == second)
        #expect(clients.press("Enter") == ["\(second.rawValue): " + "key Enter"])
    }

    @Test func e8_aReleasedOrUnreservedKeyIsDroppedAndAGoneClientsKeysAreFreed() {
        let clients = Clients()
        let holder = clients.connect("client_add_key -exclusively Left Right")
        #expect(clients.press("F1").isEmpty)
        clients.model.receive(Array("client_del_key Left".utf8), from: holder)
        #expect(clients.model.takeOutput().map(\.line) == ["success"])
        #expect(clients.press("Left").isEmpty)
        #expect(clients.press("Right") == ["\(holder.rawValue): " + "key Right"])
        // Reserved exclusively: nobody else may have it, until its holder goes.
        let next = clients.connect()
        clients.model.receive(Array("client_add_key Right".utf8), from: next)
        #expect(clients.model.takeOutput().map(\.line) == ["huh? Could not reserve key \"Right\"", "success"])
        clients.model.disconnect(holder)
        clients.model.receive(Array("client_add_key -exclusively Right".utf8), from: next)
        #expect(clients.model.takeOutput().map(\.line) == ["success"])
        #expect(clients.press("Right") == ["\(next.rawValue): " + "key Right"])
    }

    /// The server menu holds its keys as LCDd holds its `[menu]` keys: the menu key
    /// exclusively, Enter, Up and Down shared. A client asking for them so that it would take
    /// them from the menu is refused with LCDd's words, key by key; the menu key stays the menu's.
    @Test func e8_aKeyTheServerMenuHoldsIsRefusedAsLCDdRefusesIt() {
        let clients = Clients()
        let client = clients.connect()
        func send(_ line: String) -> [String] {
            clients.model.receive(Array(line.utf8), from: client)
            return clients.model.takeOutput().map(\.line)
        }
        #expect(send("client_add_key -exclusively Up") == ["huh? Could not reserve key \"Up\"", "success"])
        #expect(send("client_add_key -exclusively Down Left Enter") == ["huh? Could not reserve key \"Down\"", "huh? Could not reserve key \"Enter\"", "success"])
        #expect(send("client_add_key Escape") == ["huh? Could not reserve key \"Escape\"", "success"])
        #expect(send("client_add_key -exclusively Escape") == ["huh? Could not reserve key \"Escape\"", "success"])
        #expect(send("client_add_key Up Down Enter") == ["success"], "shared beside the menu")
        #expect(clients.model.reservedKeys(of: client) == ["Left", "Up", "Down", "Enter"])
        // The menu key opens the menu of a client that has one, whoever asked for it.
        let menu = clients.connect("client_set -name m", "menu_add_item \"\" a action {Run}")
        #expect(clients.press("Escape").isEmpty)
        #expect(clients.model.menuIsOpen)
        #expect(clients.press("Enter") == ["\(menu.rawValue): menuevent enter _client_menu_"])
        // Keys the menu does not hold are anybody's, as before.
        #expect(send("client_add_key -exclusively Right") == ["success"])
    }

    @Test func e8_nooksInputsBecomeKeysByRoleOrByTheirOwnLine() {
        var map = LCDKeyMap()
        #expect(map.key(for: InputMessage(input: .open, source: "gpio:button")) == "Enter")
        #expect(map.key(for: InputMessage(input: .dismiss, source: "press")) == "Escape")
        map.keys["up"] = "Up"
        map.keys["dismiss"] = ""
        #expect(map.key(for: InputMessage(input: .open, source: "gpio:up")) == "Up")
        #expect(map.key(for: InputMessage(input: .open, source: "gpio:button")) == "Enter")
        #expect(map.key(for: InputMessage(input: .dismiss, source: "gpio:back")) == nil)
        #expect(LCDKeyMap.problem(with: "Enter") == nil)
        #expect(LCDKeyMap.problem(with: "Two words") != nil)
        #expect(LCDKeyMap.problem(with: "{x}") != nil)
        #expect(LCDKeyMap.parse(assignment: "open=Enter")! == ("open", "Enter"))
        #expect(LCDKeyMap.parse(assignment: "dismiss=")! == ("dismiss", ""))
        #expect(LCDKeyMap.parse(assignment: "=Enter") == nil)
    }
}
