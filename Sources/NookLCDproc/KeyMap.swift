import NookProtocol

/// Which LCDproc key a press of one of Nook's inputs becomes (E8). By default the open button
/// is `Enter` and the dismiss button `Escape`, the names LCDd's drivers give the keys that
/// select and go back (lcdexec's menus and most clients use them). A GPIO line can be given a
/// key of its own by its config name (`[gpio.up]` → `up = "Up"`), which wins over its role's.
public struct LCDKeyMap: Sendable, Equatable {
    /// Role (`open`, `dismiss`) or GPIO line name → key name; an empty key name: no key.
    public var keys: [String: String]

    public static let defaults = ["open": "Enter", "dismiss": "Escape"]

    public init(keys: [String: String] = LCDKeyMap.defaults) { self.keys = keys }

    /// The key a press becomes, or nil when it is mapped to nothing.
    public func key(for press: InputMessage) -> String? {
        let line = press.source.hasPrefix("gpio:") ? String(press.source.dropFirst(5)) : nil
        let key = line.flatMap { keys[$0] } ?? keys[press.input.rawValue]
        guard let key, !key.isEmpty else { return nil }
        return key
    }

    /// Why `key` cannot be a key name, or nil: LCDd sends it as `key NAME` on one line, and
    /// `client_add_key` reads names as words.
    public static func problem(with key: String) -> String? {
        if key.count > 40 { return "a key name is at most 40 characters, got \(key.count)" }
        if key.contains(where: { $0.isWhitespace || $0.isNewline || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true || $0 == "\"" || $0 == "{" || $0 == "}" || $0 == "\\" }) {
            return "a key name is one word without spaces, quotes, braces or control characters, got \"\(key)\""
        }
        return nil
    }

    /// Why `input` names nothing a press can come from, or nil: a role (`open`, `dismiss`) or a
    /// `[gpio.NAME]` line of the board's config. A misspelt name would otherwise map nothing.
    public static func problem(withInput input: String, gpioLines: Set<String>) -> String? {
        guard defaults[input] == nil, !gpioLines.contains(input) else { return nil }
        let lines = gpioLines.sorted().map { "\"\($0)\"" }
        return "\"\(input)\" is neither an input role (\"open\", \"dismiss\") nor a [gpio.NAME] line of this file\(lines.isEmpty ? "" : " (" + lines.joined(separator: ", ") + ")")"
    }

    /// `INPUT=KEY` as `--key` takes it.
    public static func parse(assignment: String) -> (input: String, key: String)? {
        guard let equals = assignment.firstIndex(of: "=") else { return nil }
        let input = String(assignment[..<equals])
        guard !input.isEmpty else { return nil }
        return (input, String(assignment[assignment.index(after: equals)...]))
    }
}
