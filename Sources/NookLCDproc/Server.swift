import NookActivities

/// A connected client, named by the server that accepted it.
public struct LCDClientID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "client \(rawValue)" }
}

/// Per-client limits: LCDd has none, so one client could grow it without bound.
public struct LCDLimits: Sendable, Equatable {
    public var screens = 64
    public var widgetsPerScreen = 256
    /// Characters kept of any text a client sets (widget text, names, menu text).
    public var textCharacters = 1024
    public var menuItems = 256
    public var keys = 64

    public init() {}
}

/// A line for a client: an answer, or a notice (`listen`, `ignore`, `menuevent`, `key`).
public struct LCDOutput: Equatable, Sendable {
    public var client: LCDClientID
    public var line: String
}

/// LCDd 0.5.9's command set and screen list, as a state machine with no sockets and no clock:
/// ``receive(_:from:)`` answers one line, ``advance(toFrame:)`` moves time on in LCDd's
/// frames of 1/8 s (rotation, timeouts), ``glance()`` composes what is shown. Answers are
/// LCDd's, word for word (the transcript test compares them with a real LCDd).
public final class LCDServerModel {
    final class Client {
        var active = false
        var gone = false
        var name: String?
        /// Screens in the order they were added.
        var screens: [String: LCDScreen] = [:]
        var screenOrder: [String] = []
        var menu: [LCDMenuItem]?
        var keys: [(key: String, exclusive: Bool)] = []
        var backlight = "open"
    }

    struct ScreenRef: Hashable { var client: LCDClientID; var screen: String }

    public static let version = "0.5.9"
    public static let protocolVersion = "0.3"
    public static let defaultDuration = 32

    public let grid: LCDGrid
    public let limits: LCDLimits
    /// What `info` answers (LCDd answers its driver's description).
    public var info = "Nook glance (nook-lcdproc)"
    var clients: [LCDClientID: Client] = [:]
    private var nextClient = 1
    /// Every client screen, in the order added: LCDd's `screenlist`, kept sorted by priority
    /// (stable) when rotating.
    private var screenList: [ScreenRef] = []
    private var current: ScreenRef?
    private var currentStart = 0
    public private(set) var frame = 0
    var output: [LCDOutput] = []
    /// Cards for screens that reached `alert` or `foreground`, not yet taken.
    private var cards: [NookActivity] = []
    /// Set whenever what ``glance()`` would compose may have changed.
    public internal(set) var glanceChanged = true
    private var outputState = 0
    /// How the server menu is driven; set before clients connect.
    public var menuSettings = LCDMenuSettings()
    /// The server menu's open level (nil: closed), each level's selected entry, the frame of
    /// the last key (for its timeout) and a client's `menu_set_main`.
    var menuActive: LCDMenuLevel?
    var menuSelection: [LCDMenuLevel: Int] = [:]
    var menuLastKey = 0
    var menuCustomMain: LCDMenuLevel?

    public init(grid: LCDGrid, limits: LCDLimits = LCDLimits()) {
        self.grid = grid
        self.limits = limits
    }

    // MARK: Clients

    public func connect() -> LCDClientID {
        let id = LCDClientID(nextClient)
        nextClient += 1
        clients[id] = Client()
        return id
    }

    /// Forgets a client and its screens (it hung up, said `bye` or was dropped).
    public func disconnect(_ id: LCDClientID) {
        guard let client = clients[id] else { return }
        client.gone = true
        for screen in client.screenOrder { removeFromList(ScreenRef(client: id, screen: screen)) }
        menuClientGone(id)
        clients[id] = nil
        // Nothing more reaches a client that is gone (the `ignore` its shown screen caused).
        output.removeAll { $0.client == id }
    }

    /// Whether the client said `bye`: the server closes it once its answers are out.
    public func isGone(_ id: LCDClientID) -> Bool { clients[id]?.gone ?? true }

    public var clientCount: Int { clients.count }
    public var screenCount: Int { screenList.count }

    /// Lines produced since the last call, in order.
    public func takeOutput() -> [LCDOutput] {
        defer { output.removeAll(keepingCapacity: true) }
        return output
    }

    /// Cards produced since the last call (E8: `alert` → high, `foreground` → normal).
    public func takeCards() -> [NookActivity] {
        defer { cards.removeAll() }
        return cards
    }

    public func markGlanceSent() { glanceChanged = false }

    // MARK: Lines

    /// Answers one line (without its terminator) from `id`.
    public func receive(_ line: [UInt8], from id: LCDClientID) {
        guard let client = clients[id], !client.gone else { return }
        guard let arguments = LCDTokenizer.split(line) else {
            error(id, "Could not parse command")
            return
        }
        guard let first = arguments.first else {
            error(id, "Invalid command \"(null)\"")
            return
        }
        let argv = arguments.map(LCDText.decode)
        let command = argv[0]
        let handled: Bool?
        switch command {
        case "test_func": handled = testFunc(id, argv)
        case "hello": handled = hello(id, client, argv)
        case "bye":
            // LCDd removes a leaving client's screens before it closes the socket, so the
            // client whose screen was shown still reads `ignore`.
            client.gone = true
            for screen in client.screenOrder { removeFromList(ScreenRef(client: id, screen: screen)) }
            handled = true
        default:
            // Every other command wants `hello` first; LCDd reports the function's failure.
            guard client.active else {
                if Self.commands.contains(command) { error(id, "Function returned error \"\(Self.cut(first))\"") }
                else { error(id, "Invalid command \"\(Self.cut(first))\"") }
                return
            }
            handled = perform(command, id, client, argv)
        }
        if handled == nil { error(id, "Invalid command \"\(Self.cut(first))\"") }
    }

    /// Answers a line the server refused before parsing it (too long), in order with the rest.
    public func refuse(from id: LCDClientID, _ message: String) {
        guard clients[id] != nil else { return }
        error(id, message)
    }

    static let commands: Set<String> = [
        "test_func", "hello", "client_set", "client_add_key", "client_del_key", "screen_add", "screen_del", "screen_set",
        "widget_add", "widget_del", "widget_set", "menu_add_item", "menu_del_item", "menu_set_item", "menu_goto",
        "menu_set_main", "backlight", "output", "noop", "info", "sleep", "bye",
    ]

    /// `%.40s` of the command as LCDd prints it in errors.
    static func cut(_ bytes: [UInt8]) -> String { LCDText.decode(Array(bytes.prefix(40))) }

    func send(_ id: LCDClientID, _ line: String) { output.append(LCDOutput(client: id, line: line)) }
    func success(_ id: LCDClientID) { send(id, "success") }
    func error(_ id: LCDClientID, _ message: String) { send(id, "huh? " + message) }

    func text(_ value: String) -> String {
        value.count <= limits.textCharacters ? value : String(value.prefix(limits.textCharacters))
    }

    private func perform(_ command: String, _ id: LCDClientID, _ client: Client, _ argv: [String]) -> Bool? {
        switch command {
        case "client_set": clientSet(id, client, argv)
        case "client_add_key": addKey(id, client, argv)
        case "client_del_key": deleteKey(id, client, argv)
        case "screen_add": screenAdd(id, client, argv)
        case "screen_del": screenDelete(id, client, argv)
        case "screen_set": screenSet(id, client, argv)
        case "widget_add": widgetAdd(id, client, argv)
        case "widget_del": widgetDelete(id, client, argv)
        case "widget_set": widgetSet(id, client, argv)
        case "menu_add_item", "menu_del_item", "menu_set_item", "menu_goto", "menu_set_main": menu(command, id, client, argv)
        case "backlight": backlight(id, client, argv)
        case "output": outputCommand(id, argv)
        case "noop": send(id, "noop complete")
        case "info":
            if argv.count > 1 { error(id, "Extra arguments ignored...") }
            send(id, info)
        case "sleep": sleep(id, argv)
        default: return nil
        }
        return true
    }

    private func testFunc(_ id: LCDClientID, _ argv: [String]) -> Bool {
        for (index, argument) in argv.enumerated() { send(id, "test_func_func:  \(index) -> \(argument)") }
        return true
    }

    private func hello(_ id: LCDClientID, _ client: Client, _ argv: [String]) -> Bool {
        if argv.count > 1 { error(id, "extra parameters ignored") }
        send(id, "connect LCDproc \(Self.version) protocol \(Self.protocolVersion) lcd wid \(grid.width) hgt \(grid.height) cellwid \(grid.cellWidth) cellhgt \(grid.cellHeight)")
        client.active = true
        return true
    }

    private func clientSet(_ id: LCDClientID, _ client: Client, _ argv: [String]) {
        guard argv.count == 3 else { return error(id, "Usage: client_set -name <name>") }
        var index = 1
        repeat {
            let option = argv[index].hasPrefix("-") ? String(argv[index].dropFirst()) : argv[index]
            if option == "name" {
                index += 1
                // `client_set other -name`: the name is past the end (LCDd says which it missed).
                guard index < argv.count else { return error(id, "internal error: no parameter #\(index)") }
                client.name = text(argv[index])
                success(id)
                index += 1
            } else {
                error(id, "invalid parameter (\(option))")
            }
            index += 1
        } while index < argv.count
    }

    private func addKey(_ id: LCDClientID, _ client: Client, _ argv: [String]) {
        guard argv.count >= 2 else { return error(id, "Usage: client_add_key [-exclusively|-shared] {<key>}+") }
        var index = 1
        var exclusive = false
        if argv[1].hasPrefix("-") {
            switch argv[1] {
            case "-shared": exclusive = false
            case "-exclusively": exclusive = true
            default: error(id, "Invalid option: \(argv[1])")
            }
            index = 2
        }
        for key in argv[index...] {
            let taken = clients.values.contains { other in other.keys.contains { $0.key == key && ($0.exclusive || exclusive) } }
                || menuSettings.reservation(of: key).map { $0 || exclusive } == true
            if taken || client.keys.count >= limits.keys {
                error(id, "Could not reserve key \"\(key)\"")
            } else {
                client.keys.append((key, exclusive))
            }
        }
        success(id)
    }

    private func deleteKey(_ id: LCDClientID, _ client: Client, _ argv: [String]) {
        guard argv.count >= 2 else { return error(id, "Usage: client_del_key {<key>}+") }
        for key in argv[1...] { client.keys.removeAll { $0.key == key } }
        success(id)
    }

    /// The key names a client reserved (Nook's inputs are offered to them as key presses).
    public func reservedKeys(of id: LCDClientID) -> [String] { clients[id]?.keys.map(\.key) ?? [] }

    /// A key pressed (one of Nook's inputs, mapped to a key name), given as LCDd's
    /// `handle_input` gives it: to the client that reserved it exclusively; else, while the
    /// server menu is open, to the menu; else to the client whose screen is shown if it
    /// reserved the key shared (the client is sent `key NAME`); else the menu key opens the
    /// server menu when a client has one. Anything else is dropped (LCDd's own rotation keys
    /// are not there). Returns the client that got it.
    @discardableResult
    public func press(key: String) -> LCDClientID? {
        let holder = clients.first { _, client in !client.gone && client.keys.contains { $0.key == key && $0.exclusive } }?.key
        if holder == nil, menuIsOpen {
            _ = menuTakes(key: key)
            return nil
        }
        let shownClient = current?.client
        let target = holder ?? shownClient.flatMap { id in
            clients[id].map { !$0.gone && $0.keys.contains { $0.key == key } } == true ? id : nil
        }
        if let target { send(target, "key \(key)") } else { _ = menuTakes(key: key) }
        return target
    }

    private func backlight(_ id: LCDClientID, _ client: Client, _ argv: [String]) {
        guard argv.count == 2 else { return error(id, "Usage: backlight {on|off|toggle|blink|flash}") }
        switch argv[1] {
        case "on", "off", "blink", "flash": client.backlight = argv[1]
        case "toggle": client.backlight = client.backlight == "on" ? "off" : client.backlight == "off" ? "on" : client.backlight
        default: break
        }
        success(id)
    }

    private func outputCommand(_ id: LCDClientID, _ argv: [String]) {
        guard argv.count == 2 else { return error(id, "Usage: output {on|off|<num>}") }
        switch argv[1] {
        case "on": outputState = -1
        case "off": outputState = 0
        default:
            switch CLike.strtol(argv[1]) {
            case .value(let value): outputState = value
            case .outOfRange: return error(id, "number argument: Numerical result out of range")
            case .invalid: return error(id, "invalid parameter...")
            }
        }
        success(id)
    }

    private func sleep(_ id: LCDClientID, _ argv: [String]) {
        guard argv.count == 2 else { return error(id, "Usage: sleep <secs>") }
        switch CLike.strtol(argv[1]) {
        case .value(let value):
            send(id, "sleeping \(min(60, max(1, value))) seconds")
            error(id, "ignored (not fully implemented)")
        case .outOfRange: error(id, "number argument: Numerical result out of range")
        case .invalid: error(id, "invalid parameter...")
        }
    }

    // MARK: Screens

    private func screenAdd(_ id: LCDClientID, _ client: Client, _ argv: [String]) {
        guard argv.count == 2 else { return error(id, "Usage: screen_add <screenid>") }
        let name = argv[1]
        guard client.screens[name] == nil else { return error(id, "Screen already exists") }
        guard client.screens.count < limits.screens else { return error(id, "failed to add screen (at most \(limits.screens) per client)") }
        client.screens[name] = LCDScreen(id: name, duration: Self.defaultDuration)
        client.screenOrder.append(name)
        screenList.append(ScreenRef(client: id, screen: name))
        success(id)
    }

    private func screenDelete(_ id: LCDClientID, _ client: Client, _ argv: [String]) {
        guard argv.count == 2 else { return error(id, "Usage: screen_del <screenid>") }
        let name = argv[1]
        guard client.screens[name] != nil else { return error(id, "Unknown screen id") }
        removeFromList(ScreenRef(client: id, screen: name))
        client.screens[name] = nil
        client.screenOrder.removeAll { $0 == name }
        success(id)
    }

    private func screenSet(_ id: LCDClientID, _ client: Client, _ argv: [String]) {
        if argv.count == 1 {
            return error(id, "Usage: screen_set <id> [-name <name>] [-wid <width>] [-hgt <height>] [-priority <prio>] [-duration <int>] [-timeout <int>] [-heartbeat <type>] [-backlight <type>] [-cursor <type>] [-cursor_x <xpos>] [-cursor_y <ypos>]")
        }
        guard argv.count > 2 else { return error(id, "What do you want to set?") }
        guard var screen = client.screens[argv[1]] else { return error(id, "Unknown screen id") }
        var index = 2
        while index < argv.count {
            let option = argv[index].hasPrefix("-") ? String(argv[index].dropFirst()) : argv[index]
            let known = ["name", "priority", "duration", "heartbeat", "wid", "hgt", "timeout", "backlight", "cursor", "cursor_x", "cursor_y"]
            guard known.contains(option) else {
                error(id, "invalid parameter")
                index += 1
                continue
            }
            guard index + 1 < argv.count else {
                error(id, "-\(option) requires a parameter")
                index += 1
                continue
            }
            index += 1
            let value = argv[index]
            switch option {
            case "name": screen.name = text(value); success(id)
            case "priority":
                if let priority = LCDPriority.parse(value) {
                    if priority != screen.priority { glanceChanged = true }
                    if priority < .foreground { screen.carded = false }
                    screen.priority = priority
                    success(id)
                } else {
                    error(id, "invalid argument at -priority")
                }
            case "duration":
                let number = CLike.atoi(value)
                if number > 0 { screen.duration = number }
                success(id)
            case "timeout":
                let number = CLike.atoi(value)
                if number > 0 { screen.timeout = number }
                success(id)
            case "backlight":
                if !["on", "off", "toggle", "blink", "flash", "open"].contains(value) { error(id, "unknown backlight mode") }
                success(id)
            case "cursor_x", "cursor_y":
                let number = CLike.atoi(value)
                let bound = option == "cursor_x" ? grid.width : grid.height
                if number > 0 && number <= bound { success(id) } else { error(id, "Cursor position outside screen") }
            default:  // heartbeat, wid, hgt, cursor: accepted, not drawn
                success(id)
            }
            index += 1
        }
        client.screens[argv[1]] = screen
    }

    // MARK: Widgets

    private func widgetAdd(_ id: LCDClientID, _ client: Client, _ argv: [String]) {
        guard (4...6).contains(argv.count) else { return error(id, "Usage: widget_add <screenid> <widgetid> <widgettype> [-in <id>]") }
        guard var screen = client.screens[argv[1]] else { return error(id, "Invalid screen id") }
        guard let type = LCDWidgetType(rawValue: argv[3]) else { return error(id, "Invalid widget type") }
        var frame: Int?
        if argv.count > 4 {
            let option = argv[4].hasPrefix("-") ? String(argv[4].dropFirst()) : argv[4]
            if option == "in" {
                guard argv.count == 6 else { return error(id, "Specify a frame to place widget in") }
                guard let (index, child) = screen.locate(argv[5]), child == nil, screen.widgets[index].type == .frame else {
                    return error(id, "Error finding frame")
                }
                frame = index
            }
        }
        guard screen.widgetCount < limits.widgetsPerScreen else { return error(id, "Error adding widget (at most \(limits.widgetsPerScreen) per screen)") }
        let widget = LCDWidget(id: argv[2], type: type)
        // LCDd allows two widgets with one id; the first one found is the one set.
        if let frame { screen.widgets[frame].children.append(widget) } else { screen.widgets.append(widget) }
        client.screens[argv[1]] = screen
        success(id)
    }

    private func widgetDelete(_ id: LCDClientID, _ client: Client, _ argv: [String]) {
        guard argv.count == 3 else { return error(id, "Usage: widget_del <screenid> <widgetid>") }
        guard var screen = client.screens[argv[1]] else { return error(id, "Invalid screen id") }
        guard let (index, child) = screen.locate(argv[2]) else { return error(id, "Invalid widget id") }
        if let child { screen.widgets[index].children.remove(at: child) } else { screen.widgets.remove(at: index) }
        client.screens[argv[1]] = screen
        touched(id, argv[1])
        success(id)
    }

    private func touched(_ id: LCDClientID, _ screen: String) {
        if current == ScreenRef(client: id, screen: screen) { glanceChanged = true }
    }

    private func widgetSet(_ id: LCDClientID, _ client: Client, _ argv: [String]) {
        guard argv.count >= 4 else { return error(id, "Usage: widget_set <screenid> <widgetid> <widget-SPECIFIC-data>") }
        guard var screen = client.screens[argv[1]] else { return error(id, "Unknown screen id") }
        let location = screen.locate(argv[2])
        guard let (index, child) = location else { return error(id, "Unknown widget id") }
        var widget = child.map { screen.widgets[index].children[$0] } ?? screen.widgets[index]
        let data = Array(argv[3...])
        let digits = { (count: Int) in data.prefix(count).allSatisfy(CLike.startsWithDigit) }
        switch widget.type {
        case .string:
            guard data.count == 3 else { return error(id, "Wrong number of arguments") }
            guard digits(2) else { return error(id, "Invalid coordinates") }
            (widget.x, widget.y, widget.text) = (CLike.atoi(data[0]), CLike.atoi(data[1]), text(data[2]))
            success(id)
        case .hbar, .vbar:
            guard data.count == 3 else { return error(id, "Wrong number of arguments") }
            if digits(2) {
                (widget.x, widget.y, widget.length) = (CLike.atoi(data[0]), CLike.atoi(data[1]), CLike.atoi(data[2]))
            } else {
                error(id, "Invalid coordinates")
            }
            success(id)
        case .icon:
            guard data.count == 3 else { return error(id, "Wrong number of arguments") }
            guard digits(2) else { return error(id, "Invalid coordinates") }
            guard let icon = LCDIcons.canonicalName(data[2]) else { return error(id, "Invalid icon name") }
            (widget.x, widget.y, widget.icon) = (CLike.atoi(data[0]), CLike.atoi(data[1]), icon)
            success(id)
        case .title:
            guard data.count == 1 else { return error(id, "Wrong number of arguments") }
            widget.text = text(data[0])
            success(id)
        case .scroller:
            guard data.count == 7 else { return error(id, "Wrong number of arguments") }
            guard digits(4) else { return error(id, "Invalid coordinates") }
            let direction = data[4].utf8.first ?? 0
            guard [UInt8(ascii: "h"), UInt8(ascii: "v"), UInt8(ascii: "m")].contains(direction) else { return error(id, "Invalid direction") }
            (widget.left, widget.top, widget.right, widget.bottom) = (CLike.atoi(data[0]), CLike.atoi(data[1]), CLike.atoi(data[2]), CLike.atoi(data[3]))
            (widget.direction, widget.speed, widget.text) = (direction, CLike.atoi(data[5]), text(data[6]))
            success(id)
        case .frame:
            guard data.count == 8 else { return error(id, "Wrong number of arguments") }
            guard digits(6) else { return error(id, "Invalid coordinates") }
            let direction = data[6].utf8.first ?? 0
            guard direction == UInt8(ascii: "h") || direction == UInt8(ascii: "v") else { return error(id, "Invalid direction") }
            (widget.left, widget.top, widget.right, widget.bottom) = (CLike.atoi(data[0]), CLike.atoi(data[1]), CLike.atoi(data[2]), CLike.atoi(data[3]))
            (widget.width, widget.height, widget.direction, widget.speed) = (CLike.atoi(data[4]), CLike.atoi(data[5]), direction, CLike.atoi(data[7]))
            success(id)
        case .num:
            guard data.count == 2 else { return error(id, "Wrong number of arguments") }
            if !CLike.startsWithDigit(data[0]) {
                error(id, "Invalid coordinates")
            } else if !CLike.startsWithDigit(data[1]) {
                error(id, "Invalid number")
            } else {
                (widget.x, widget.y) = (CLike.atoi(data[0]), CLike.atoi(data[1]))
            }
            success(id)
        }
        if let child { screen.widgets[index].children[child] = widget } else { screen.widgets[index] = widget }
        client.screens[argv[1]] = screen
        touched(id, argv[1])
    }

    // MARK: The screen list

    private func screen(_ ref: ScreenRef) -> LCDScreen? { clients[ref.client]?.screens[ref.screen] }

    /// LCDd sorts its list by priority class, highest first, keeping the order of equals.
    private func sortedList() -> [ScreenRef] {
        let priorities = screenList.map { screen($0)?.priority ?? .hidden }
        return screenList.indices.sorted { priorities[$0] != priorities[$1] ? priorities[$0] > priorities[$1] : $0 < $1 }.map { screenList[$0] }
    }

    private func removeFromList(_ ref: ScreenRef) {
        if current == ref {
            goToNext()
            // The shown screen's client is told `ignore` as it goes, as LCDd tells it.
            if current == ref { switchTo(nil) }
        }
        screenList.removeAll { $0 == ref }
        if current == nil, !menuIsOpen { showFirstScreen() }
        glanceChanged = true
    }

    /// Shows the first screen of the sorted list, if one is to be shown.
    func showFirstScreen() {
        if let first = sortedList().first, (screen(first)?.priority ?? .hidden) > .hidden { switchTo(first) }
    }

    func switchTo(_ ref: ScreenRef?) {
        guard ref != current else { return }
        // A client that said `bye` is still here until its answers are out: it hears `ignore`.
        if let old = current, clients[old.client] != nil { send(old.client, "ignore \(old.screen)") }
        if let ref { send(ref.client, "listen \(ref.screen)") }
        current = ref
        currentStart = frame
        glanceChanged = true
    }

    private func goToNext() {
        guard let current, let now = screen(current) else { return }
        let list = sortedList()
        guard let position = list.firstIndex(of: current) else { return }
        var next = position + 1 < list.count ? list[position + 1] : nil
        if next == nil || (screen(next!)?.priority ?? .hidden) < now.priority { next = list.first }
        switchTo(next)
    }

    /// Moves time on to `target` (frames of 1/8 s since start), doing LCDd's per-frame work:
    /// the first screen is shown, a screen's timeout counts down while it is shown, a higher
    /// class takes over at once, and `info`/`foreground` screens rotate after their duration.
    public func advance(toFrame target: Int) {
        while frame < target {
            frame += 1
            process()
        }
    }

    private func process() {
        collectCards()
        // The open menu is LCDd's screen at `input` priority: nothing rotates under it.
        if menuIsOpen {
            menuTick()
            return
        }
        let list = sortedList()
        guard let first = list.first, (screen(first)?.priority ?? .hidden) > .hidden else {
            switchTo(nil)
            return
        }
        guard let ref = current, var shown = screen(ref) else {
            switchTo(first)
            return
        }
        if shown.timeout != -1 {
            shown.timeout -= 1
            clients[ref.client]?.screens[ref.screen] = shown
            if shown.timeout <= 0 {
                clients[ref.client]?.screens[ref.screen] = nil
                clients[ref.client]?.screenOrder.removeAll { $0 == ref.screen }
                removeFromList(ref)
                return
            }
        }
        if let top = screen(first), top.priority > shown.priority {
            switchTo(first)
            return
        }
        if frame - currentStart >= shown.duration, shown.priority > .background, shown.priority <= .foreground {
            goToNext()
        }
        // A scroller moves with time.
        if shown.widgets.contains(where: { $0.type == .scroller }) { glanceChanged = true }
    }

    /// A screen at `alert` or `foreground` with something on it becomes a card once per
    /// stay at that class, a frame after it got there so its widgets are set.
    private func collectCards() {
        for ref in screenList {
            guard let client = clients[ref.client], var screen = client.screens[ref.screen],
                  screen.priority >= .foreground, screen.priority <= .alert, !screen.carded else { continue }
            let composed = LCDComposer(grid: grid, frame: frame).compose(screen)
            let lines = composed.lines.enumerated().filter { $0.offset != composed.titleRow }.map { $0.element.trimmingCharacters }.filter { !$0.isEmpty }
            // A screen raised before its widgets are set waits for them: a card of its bare id
            // or name would say nothing.
            let heading = LCDComposer.title(of: screen)?.trimmingCharacters ?? ""
            guard !heading.isEmpty || !lines.isEmpty else { continue }
            let title = heading.isEmpty ? screen.name ?? lines.first ?? screen.id : heading
            screen.carded = true
            client.screens[ref.screen] = screen
            var subtitle = lines.filter { $0 != title }.joined(separator: " · ")
            if subtitle.count > 1024 { subtitle = String(subtitle.prefix(1024)) }
            var activity = NookActivity(title: LCDText.display(String(title.prefix(256))))
            activity.subtitle = subtitle.isEmpty ? nil : LCDText.display(subtitle)
            activity.priority = screen.priority == .alert ? .high : .normal
            activity.coalescingKey = "lcdproc:\(client.name ?? "client\(ref.client.rawValue)"):\(ref.screen)"
            activity.systemImage = screen.priority == .alert ? "exclamationmark.triangle" : "info.circle"
            activity.tint = .named(screen.priority == .alert ? .orange : .blue)
            cards.append(activity)
        }
    }

    /// The shown screen as a glance; nil when no client screen is shown.
    public func glance() -> NookGlance? {
        var glance: NookGlance
        if menuIsOpen {
            guard let menu = menuGlance() else { return nil }
            glance = menu
            glance.menu = true
        } else {
            guard let current, let shown = screen(current) else { return nil }
            glance = LCDComposer(grid: grid, frame: frame).compose(shown)
        }
        glance.lines = glance.lines.map(LCDText.display)
        return glance
    }

    /// The client and screen id shown now.
    public var shownScreen: (client: LCDClientID, screen: String)? { current.map { ($0.client, $0.screen) } }
}

extension String {
    var trimmingCharacters: String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text.removeFirst() }
        while text.last?.isWhitespace == true { text.removeLast() }
        return String(text)
    }
}
