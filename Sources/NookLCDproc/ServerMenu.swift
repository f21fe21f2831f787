import NookActivities

/// How the server menu is driven (E8). The key names are LCDd's defaults (`[menu]` of
/// LCDd.conf: MenuKey=Escape, EnterKey=Enter, UpKey=Up, DownKey=Down), which Nook's inputs
/// become through ``LCDKeyMap``.
public struct LCDMenuSettings: Sendable, Equatable {
    public var menuKey = "Escape"
    public var enterKey = "Enter"
    public var upKey = "Up"
    public var downKey = "Down"
    /// No input becomes Up or Down (a board with Nook's two buttons): once the menu is open,
    /// the menu key moves to the next entry (a slider's value up, wrapping), and every menu
    /// ends with a Back entry (Close at the top) that Enter selects.
    public var twoKeys = false
    /// LCDd frames (1/8 s) with no key after which the menu closes; 0: never. LCDd's menu
    /// stays open until closed; a panel with two buttons should not be left in it.
    public var timeoutFrames = 30 * 8

    public init() {}

    /// Whether the server menu holds `key`, as LCDd's `menuscreens_init` reserves its `[menu]`
    /// keys: the menu key exclusively (true), Enter, Up and Down shared (false); nil: not a
    /// key of the menu. A client cannot reserve a key the menu holds exclusively, nor one the
    /// menu shares exclusively.
    func reservation(of key: String) -> Bool? {
        if key == menuKey { return true }
        return [enterKey, upKey, downKey].contains(key) ? false : nil
    }

    /// Two-key mode when no mapped input produces the up or the down key.
    public static func twoKeys(for keyMap: LCDKeyMap, settings: LCDMenuSettings = LCDMenuSettings()) -> Bool {
        !keyMap.keys.values.contains(settings.upKey) && !keyMap.keys.values.contains(settings.downKey)
    }
}

/// A place in the server menu: the server's main menu (no client), a client's own menu (no
/// item; LCDd's `_client_menu_`), or one of its items.
struct LCDMenuLevel: Hashable {
    var client: LCDClientID?
    var item: String?

    static let main = LCDMenuLevel(client: nil, item: nil)
}

/// What the menu does after a key, as LCDd's `MenuResult`.
private enum LCDMenuResult {
    case none, close, quit, enter(LCDMenuLevel), goto(LCDClientID, String)
}

private enum LCDMenuToken { case menu, enter, up, down, other }

/// One line of a menu on the glance.
private enum LCDMenuEntry {
    case clientMenu(LCDClientID, String)
    case item(LCDClientID, LCDMenuItem)
    case back
}

extension LCDServerModel {
    /// Whether the server menu is on the glance.
    public var menuIsOpen: Bool { menuActive != nil }

    /// Whether any client built a menu (without one, the menu key is left to clients).
    var anyClientMenu: Bool { clients.values.contains { $0.menu != nil && !$0.gone } }

    // MARK: Keys

    /// Gives `key` to the server menu as LCDd's `menuscreen_key_handler` does. False when the
    /// menu does not take it (closed, and not the menu key or no client has a menu).
    func menuTakes(key: String) -> Bool {
        var token: LCDMenuToken = switch key {
        case menuSettings.menuKey: .menu
        case menuSettings.enterKey: .enter
        case menuSettings.upKey: .up
        case menuSettings.downKey: .down
        default: .other
        }
        guard let active = menuActive else {
            guard token == .menu, anyClientMenu else { return false }
            switchMenu(to: menuMain)
            return true
        }
        menuLastKey = frame
        if menuSettings.twoKeys, token == .menu { token = isMenu(active) ? .down : .up }
        let result = isMenu(active) ? menuInput(active, token) : sliderInput(active, token)
        apply(result)
        glanceChanged = true
        return true
    }

    private func isMenu(_ level: LCDMenuLevel) -> Bool {
        guard let id = level.item else { return true }
        return item(level.client, id)?.kind == .menu
    }

    func item(_ client: LCDClientID?, _ id: String) -> LCDMenuItem? {
        client.flatMap { clients[$0]?.menu?.first { $0.id == id } }
    }

    private func menuInput(_ level: LCDMenuLevel, _ token: LCDMenuToken) -> LCDMenuResult {
        let entries = self.entries(of: level)
        let selected = min(menuSelection[level] ?? 0, max(0, entries.count - 1))
        switch token {
        case .up:
            menuSelection[level] = entries.isEmpty ? 0 : (selected + entries.count - 1) % entries.count
            return .none
        case .down:
            menuSelection[level] = entries.isEmpty ? 0 : (selected + 1) % entries.count
            return .none
        case .menu:
            // The selected entry's predecessor if it has no screen of its own, else the menu's.
            var target = level.item.flatMap { item(level.client, $0)?.predecessor }
            if entries.indices.contains(selected), case .item(_, let entry) = entries[selected],
               [.action, .checkbox, .ring].contains(entry.kind), let own = entry.predecessor {
                target = own
            }
            return result(level.client, target, default: .close)
        case .other:
            return .none
        case .enter:
            guard entries.indices.contains(selected) else { return .none }
            switch entries[selected] {
            case .back: return .close
            case .clientMenu(let client, _): return .enter(LCDMenuLevel(client: client, item: nil))
            case .item(let client, var entry):
                switch entry.kind {
                case .action:
                    menuEvent(client, "select", entry)
                case .checkbox:
                    entry.value = (entry.value + 1) % (entry.allowGray ? 3 : 2)
                    store(entry, of: client)
                    menuEvent(client, "update", entry)
                case .ring:
                    entry.value = (entry.value + 1) % max(1, entry.strings.count)
                    store(entry, of: client)
                    menuEvent(client, "update", entry)
                case .menu, .slider:
                    return .enter(LCDMenuLevel(client: client, item: entry.id))
                case .numeric, .alpha, .ip:
                    // Not editable from the panel: shown with their value only.
                    return .none
                }
                return result(client, entry.successor, default: .none)
            }
        }
    }

    private func sliderInput(_ level: LCDMenuLevel, _ token: LCDMenuToken) -> LCDMenuResult {
        guard let client = level.client, let id = level.item, var slider = item(client, id) else { return .close }
        switch token {
        case .menu: return result(client, slider.predecessor, default: .close)
        case .enter: return result(client, slider.successor, default: .close)
        case .up:
            // With one direction only, LCDd wraps at the end.
            let onlyUp = menuSettings.twoKeys
            slider.value = onlyUp && slider.value == slider.maximum ? slider.minimum : min(slider.maximum, slider.value &+ slider.step)
            store(slider, of: client)
            menuEvent(client, "plus", slider)
        case .down:
            slider.value = max(slider.minimum, slider.value &- slider.step)
            store(slider, of: client)
            menuEvent(client, "minus", slider)
        case .other: break
        }
        return .none
    }

    private func result(_ client: LCDClientID?, _ target: String?, default fallback: LCDMenuResult) -> LCDMenuResult {
        switch target {
        case nil: fallback
        case "_quit_": .quit
        case "_close_": .close
        case "_none_": .none
        // A target deleted since it was named counts as none: the menu key must still lead
        // out of the menu (LCDd would do nothing, and with no timeout the menu stayed open).
        case let id?: if let client, item(client, id) != nil { .goto(client, id) } else { fallback }
        }
    }

    private func store(_ entry: LCDMenuItem, of client: LCDClientID) {
        guard let index = clients[client]?.menu?.firstIndex(where: { $0.id == entry.id }) else { return }
        clients[client]?.menu?[index] = entry
    }

    /// `menuevent TYPE ID [VALUE]`, LCDd's `menu_commands_handler` text.
    private func menuEvent(_ client: LCDClientID, _ type: String, _ entry: LCDMenuItem) {
        let id = Self.cut(Array(entry.id.utf8))
        let value = ["update", "plus", "minus"].contains(type) ? entry.eventValue.map { " " + $0 } ?? "" : ""
        send(client, "menuevent \(type) \(id)\(value)")
    }

    private func levelEvent(_ type: String, _ level: LCDMenuLevel) {
        guard let client = level.client, clients[client] != nil else { return }
        send(client, "menuevent \(type) \(Self.cut(Array((level.item ?? "_client_menu_").utf8)))")
    }

    private func apply(_ result: LCDMenuResult) {
        guard let active = menuActive else { return }
        switch result {
        case .none: break
        case .quit: switchMenu(to: nil)
        case .close: switchMenu(to: active == menuMain ? nil : parent(of: active))
        case .enter(let level): switchMenu(to: level)
        case .goto(let client, let id):
            guard let target = item(client, id) else { return }
            // LCDd's handle_successor: an entry without a screen of its own is selected in its
            // menu (after switching there, which starts the menu at its top); a menu or a
            // slider is entered, selected in its own menu first.
            let parentLevel = LCDMenuLevel(client: client, item: target.parent)
            let position = entries(of: parentLevel).firstIndex { if case .item(_, let entry) = $0 { entry.id == id } else { false } }
            switch target.kind {
            case .action, .checkbox, .ring, .numeric, .alpha, .ip:
                if active != parentLevel { switchMenu(to: parentLevel) }
                if let position { menuSelection[parentLevel] = position }
            case .menu, .slider:
                if let position { menuSelection[parentLevel] = position }
                switchMenu(to: LCDMenuLevel(client: client, item: id))
            }
        }
    }

    /// The level above: an item's menu, a client's menu's the main menu.
    func parent(of level: LCDMenuLevel) -> LCDMenuLevel? {
        guard let client = level.client else { return nil }
        guard let id = level.item else { return .main }
        return LCDMenuLevel(client: client, item: item(client, id)?.parent)
    }

    /// Where the menu opens: a client's `menu_set_main`, else the main menu.
    var menuMain: LCDMenuLevel {
        guard let custom = menuCustomMain else { return .main }
        guard let id = custom.item else { return clients[custom.client!]?.menu == nil ? .main : custom }
        let kind = item(custom.client, id)?.kind
        return kind == .menu || kind == .slider ? custom : .main
    }

    /// LCDd's `menuscreen_switch_item`: opening shows the menu over the client screens (the
    /// client shown is told `ignore`), closing gives them back; the item left and the item
    /// entered are told `menuevent leave`/`enter`.
    func switchMenu(to level: LCDMenuLevel?) {
        let old = menuActive
        menuActive = level
        menuLastKey = frame
        glanceChanged = true
        if let level, old.flatMap({ parent(of: $0) }) != level { menuSelection[level] = 0 }
        if old == nil, level != nil {
            switchTo(nil)
        } else if old != nil, level == nil {
            menuSelection.removeAll()
            showFirstScreen()
        }
        if let old { levelEvent("leave", old) }
        if let level { levelEvent("enter", level) }
    }

    /// Closes the menu when no key came for the configured time.
    func menuTick() {
        guard menuActive != nil, menuSettings.timeoutFrames > 0, frame - menuLastKey >= menuSettings.timeoutFrames else { return }
        switchMenu(to: nil)
    }

    /// Before `id` of `client` and what is in it go (`menu_del_item`, LCDd's
    /// `menuscreen_inform_item_destruction`): a menu showing it goes up to its parent.
    func menuWillRemove(_ client: LCDClientID, _ removed: Set<String>, parentOfRemoved: String?) {
        guard let active = menuActive, active.client == client, let id = active.item, removed.contains(id) else { return }
        switchMenu(to: LCDMenuLevel(client: client, item: parentOfRemoved))
    }

    /// A client went: a menu of its own closes to the main menu (or shut, if no menu is left).
    func menuClientGone(_ client: LCDClientID) {
        if menuCustomMain?.client == client { menuCustomMain = nil }
        menuSelection = menuSelection.filter { $0.key.client != client }
        guard menuIsOpen else { return }
        // The main menu lists the clients: it changes even if another client's menu is shown.
        glanceChanged = true
        // No events: the client whose level it was is gone. With no client menu left the menu
        // closes whatever level it shows (an empty main menu would stay up until its timeout).
        if !anyClientMenu {
            menuActive = nil
            menuSelection.removeAll()
            showFirstScreen()
        } else if menuActive?.client == client {
            menuActive = menuMain
            menuLastKey = frame
        }
    }

    // MARK: Drawing

    private func entries(of level: LCDMenuLevel) -> [LCDMenuEntry] {
        var entries: [LCDMenuEntry]
        if let client = level.client {
            let items = clients[client]?.menu ?? []
            entries = items.filter { $0.parent == level.item && !$0.hidden }.map { .item(client, $0) }
        } else {
            entries = clients.keys.sorted().compactMap { id in
                guard let client = clients[id], client.menu != nil, !client.gone else { return nil }
                return .clientMenu(id, client.name ?? "client \(id.rawValue)")
            }
        }
        if menuSettings.twoKeys { entries.append(.back) }
        return entries
    }

    private func title(of level: LCDMenuLevel) -> String {
        guard let client = level.client else { return "LCDproc Menu" }
        guard let id = level.item else { return clients[client]?.name ?? "client \(client.rawValue)" }
        return item(client, id)?.text ?? id
    }

    /// The open menu as a glance: its title as the title bar, its entries below with the
    /// selected one highlighted, scrolled so it is on view.
    func menuGlance() -> NookGlance? {
        guard let level = menuActive else { return nil }
        let (width, height) = (grid.width, grid.height)
        let titleRows = height > 1 ? 1 : 0
        var lines = [String](repeating: "", count: height)
        if titleRows == 1 { lines[0] = fit(title(of: level), width) }
        if !isMenu(level), let client = level.client, let id = level.item, let slider = item(client, id) {
            return sliderGlance(slider, lines: lines, titleRows: titleRows)
        }
        let entries = self.entries(of: level)
        let selected = min(menuSelection[level] ?? 0, max(0, entries.count - 1))
        let room = height - titleRows
        let first = selected < room ? 0 : selected - room + 1
        var highlight: Int?
        for (offset, index) in (first..<min(entries.count, first + room)).enumerated() {
            let row = titleRows + offset
            let (text, value): (String, String) = switch entries[index] {
            case .back: (level == menuMain ? "Close" : "Back", "‹")
            case .clientMenu(_, let name): (name, "›")
            case .item(_, let entry): (entry.text, entry.shownValue)
            }
            lines[row] = line(text, value, selected: index == selected, width: width)
            if index == selected { highlight = row }
        }
        if entries.isEmpty, room > 0 { lines[titleRows] = fit("  (empty)", width) }
        return NookGlance(columns: width, rows: height, lines: lines, titleRow: titleRows == 1 ? 0 : nil, highlightRow: highlight)
    }

    private func sliderGlance(_ slider: LCDMenuItem, lines: [String], titleRows: Int) -> NookGlance {
        var lines = lines
        let width = grid.width
        let row = min(titleRows, grid.height - 1)
        let value = String(slider.value)
        guard grid.height > 1 else {
            lines[0] = line(slider.text, value, selected: false, width: width)
            return NookGlance(columns: width, rows: grid.height, lines: lines)
        }
        let minText = String(slider.minText.prefix(width / 4)), maxText = String(slider.maxText.prefix(width / 4))
        let barStart = minText.count + 1
        let barLength = max(0, width - barStart - maxText.count - 1)
        var text = Array(minText) + Array(repeating: Character(" "), count: max(0, width - minText.count))
        for (offset, character) in maxText.enumerated() { text[width - maxText.count + offset] = character }
        lines[row] = fit(String(text), width)
        var bars: [NookGlance.Bar] = []
        let span = Double(slider.maximum) - Double(slider.minimum)
        if barLength > 0, barStart < width {
            let fraction = span > 0 ? min(1, max(0, (Double(slider.value) - Double(slider.minimum)) / span)) : 0
            bars.append(NookGlance.Bar(row: row, column: barStart, length: fraction * Double(barLength), direction: .horizontal))
        }
        if row + 1 < grid.height { lines[row + 1] = fit(String(repeating: " ", count: max(0, (width - value.count) / 2)) + value, width) }
        return NookGlance(columns: width, rows: grid.height, lines: lines, titleRow: 0, bars: bars)
    }

    private func line(_ text: String, _ value: String, selected: Bool, width: Int) -> String {
        let prefix = width > 4 ? (selected ? "▸ " : "  ") : ""
        var value = String(value.prefix(max(0, width / 2)))
        var text = Self.oneLine(text)
        // On a very narrow grid the entry's text matters more than its value.
        if width - prefix.count - value.count - 1 < min(text.count, 4) { value = "" }
        let room = width - prefix.count - (value.isEmpty ? 0 : value.count + 1)
        if text.count > room { text = String(text.prefix(max(0, room - 1))) + (room > 0 ? "…" : "") }
        guard !value.isEmpty else { return fit(prefix + text, width) }
        let gap = max(1, width - prefix.count - text.count - value.count)
        return fit(prefix + text + String(repeating: " ", count: gap) + value, width)
    }

    private func fit(_ text: String, _ width: Int) -> String {
        var text = String(Self.oneLine(text).prefix(width))
        while text.last == " " { text.removeLast() }
        return text
    }

    /// Menu text is drawn on one row: line breaks a client sent become spaces.
    static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
    }
}
