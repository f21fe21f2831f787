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
    var nextClient = 1
    /// Every client screen, in the order added: LCDd's `screenlist`, kept sorted by priority
    /// (stable) when rotating.
    var screenList: [ScreenRef] = []
    var current: ScreenRef?
    var currentStart = 0
    public internal(set) var frame = 0
    var output: [LCDOutput] = []
    /// Cards for screens that reached `alert` or `foreground`, not yet taken.
    var cards: [NookActivity] = []
    /// Set whenever what ``glance()`` would compose may have changed.
    public internal(set) var glanceChanged = true
    var outputState = 0
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
            guard let perform = Self.commandsAfterHello[command] else { handled = nil; break }
            perform(self, id, client, argv)
            handled = true
        }
        if handled == nil { error(id, "Invalid command \"\(Self.cut(first))\"") }
    }

    /// Answers a line the server refused before parsing it (too long), in order with the rest.
    public func refuse(from id: LCDClientID, _ message: String) {
        guard clients[id] != nil else { return }
        error(id, message)
    }

    /// What a command does once the client said `hello`.
    typealias Command = @Sendable (LCDServerModel, LCDClientID, Client, [String]) -> Void

    /// LCDd's commands after `hello`, one row a word (LCDd's `command_list.c`).
    static let commandsAfterHello: [String: Command] = {
        var rows: [String: Command] = [
            "client_set": { $0.clientSet($1, $2, $3) },
            "client_add_key": { $0.addKey($1, $2, $3) },
            "client_del_key": { $0.deleteKey($1, $2, $3) },
            "screen_add": { $0.screenAdd($1, $2, $3) },
            "screen_del": { $0.screenDelete($1, $2, $3) },
            "screen_set": { $0.screenSet($1, $2, $3) },
            "widget_add": { $0.widgetAdd($1, $2, $3) },
            "widget_del": { $0.widgetDelete($1, $2, $3) },
            "widget_set": { $0.widgetSet($1, $2, $3) },
            "backlight": { $0.backlight($1, $2, $3) },
            "output": { model, id, _, argv in model.outputCommand(id, argv) },
            "noop": { model, id, _, _ in model.send(id, "noop complete") },
            "info": { model, id, _, argv in
                if argv.count > 1 { model.error(id, "Extra arguments ignored...") }
                model.send(id, model.info)
            },
            "sleep": { model, id, _, argv in model.sleep(id, argv) },
        ]
        for word in ["menu_add_item", "menu_del_item", "menu_set_item", "menu_goto", "menu_set_main"] {
            rows[word] = { $0.menu(word, $1, $2, $3) }
        }
        return rows
    }()

    /// Every command LCDd knows: those a client may send before `hello` too, and the rest.
    static let commands = Set(commandsAfterHello.keys).union(["test_func", "hello", "bye"])

    /// `%.40s` of the command as LCDd prints it in errors.
    static func cut(_ bytes: [UInt8]) -> String { LCDText.decode(Array(bytes.prefix(40))) }

    func send(_ id: LCDClientID, _ line: String) { output.append(LCDOutput(client: id, line: line)) }
    func success(_ id: LCDClientID) { send(id, "success") }
    func error(_ id: LCDClientID, _ message: String) { send(id, "huh? " + message) }

    func text(_ value: String) -> String {
        value.count <= limits.textCharacters ? value : String(value.prefix(limits.textCharacters))
    }

    func testFunc(_ id: LCDClientID, _ argv: [String]) -> Bool {
        for (index, argument) in argv.enumerated() { send(id, "test_func_func:  \(index) -> \(argument)") }
        return true
    }

    func hello(_ id: LCDClientID, _ client: Client, _ argv: [String]) -> Bool {
        if argv.count > 1 { error(id, "extra parameters ignored") }
        send(id, "connect LCDproc \(Self.version) protocol \(Self.protocolVersion) lcd wid \(grid.width) hgt \(grid.height) cellwid \(grid.cellWidth) cellhgt \(grid.cellHeight)")
        client.active = true
        return true
    }

    func clientSet(_ id: LCDClientID, _ client: Client, _ argv: [String]) {
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

    func addKey(_ id: LCDClientID, _ client: Client, _ argv: [String]) {
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

    func deleteKey(_ id: LCDClientID, _ client: Client, _ argv: [String]) {
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

    func backlight(_ id: LCDClientID, _ client: Client, _ argv: [String]) {
        guard argv.count == 2 else { return error(id, "Usage: backlight {on|off|toggle|blink|flash}") }
        switch argv[1] {
        case "on", "off", "blink", "flash": client.backlight = argv[1]
        case "toggle": client.backlight = client.backlight == "on" ? "off" : client.backlight == "off" ? "on" : client.backlight
        default: break
        }
        success(id)
    }

    func outputCommand(_ id: LCDClientID, _ argv: [String]) {
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

    func sleep(_ id: LCDClientID, _ argv: [String]) {
        guard argv.count == 2 else { return error(id, "Usage: sleep <secs>") }
        switch CLike.strtol(argv[1]) {
        case .value(let value):
            send(id, "sleeping \(min(60, max(1, value))) seconds")
            error(id, "ignored (not fully implemented)")
        case .outOfRange: error(id, "number argument: Numerical result out of range")
        case .invalid: error(id, "invalid parameter...")
        }
    }
}
