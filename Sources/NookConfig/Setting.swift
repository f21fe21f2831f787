/// What a reload does with a key whose value changed: applies it at once, or keeps the running
/// value until the program restarts. nook.toml(5) says it of each key as "Reload: applied" or
/// "Reload: restart"; the bridges read their files at start only, so each of their keys is
/// `restart`.
public enum SettingReload: String, Sendable {
    case applied, restart
}

/// The shape of a setting's value, with the range where it has one.
public enum SettingKind: Equatable, Sendable {
    case integer(ClosedRange<Int>)
    case number(ClosedRange<Double>)
    /// A list of whole numbers, each in the range.
    case integers(ClosedRange<Int>)
    /// A list of numbers, each in the range.
    case numbers(ClosedRange<Double>)
    case bool
    case text
    case texts
    case choice([String])
}

/// One key of a program's config file, spelled once, at the part of the program that owns it:
/// its key, type, default, range and what a reload does with it. The reader reads the key
/// through it, the program's list of keys is its declarations (nookd's `DaemonConfig.keys`, a
/// bridge's `settings`), nookd's reload decides by it, and tests check the man page's entry
/// (nook.toml(5), each bridge's page) against it.
public struct Setting<Value: Sendable>: Sendable {
    public let key: String
    public let kind: SettingKind
    public let defaultValue: Value
    public let reload: SettingReload
    /// The default as nook.toml(5) writes it; nil where the page describes a default worked out
    /// at start (the first card, none) rather than a value.
    public var shownDefault: String?
    /// The range as nook.toml(5) writes it where the page says more than "LOW to HIGH" (a value
    /// that turns the feature off, a bound set by another key).
    public var shownRange: String?

    public var declaration: SettingDeclaration {
        SettingDeclaration(key: key, kind: kind, shownDefault: shownDefault, reload: reload, shownRange: shownRange ?? kind.shownRange)
    }

    /// The same setting with nook.toml(5)'s wording of its default (nil: the page words it so
    /// that no "default X" stands in it, such as "clock (the default)").
    public func showing(default text: String?) -> Setting {
        var setting = self
        setting.shownDefault = text
        return setting
    }

    /// The same setting with nook.toml(5)'s wording of its range, where the page says more than
    /// "LOW to HIGH" (hex, or a bound set by other keys).
    public func showing(range text: String) -> Setting {
        var setting = self
        setting.shownRange = text
        return setting
    }

    /// The setting of one `[TABLE.NAME]` table, for a key declared with a `*` for the name
    /// (`gpio.*.role` of `[gpio.button]` is `gpio.button.role`).
    public func named(_ name: String) -> Setting {
        Setting(key: key.split(separator: ".", omittingEmptySubsequences: false).map { $0 == "*" ? name : String($0) }.joined(separator: "."), kind: kind, defaultValue: defaultValue, reload: reload,
                shownDefault: shownDefault, shownRange: shownRange)
    }
}

/// A setting without its value's type: what the key table, the reload and the page's check read.
public struct SettingDeclaration: Sendable {
    public let key: String
    public let kind: SettingKind
    public let shownDefault: String?
    public let reload: SettingReload
    /// The range as nook.toml(5) writes it; nil for a value without one.
    public let shownRange: String?

    public init(key: String, kind: SettingKind, shownDefault: String?, reload: SettingReload, shownRange: String?) {
        (self.key, self.kind, self.shownDefault, self.reload, self.shownRange) = (key, kind, shownDefault, reload, shownRange)
    }
}

extension SettingKind {
    /// "LOW to HIGH", as nook.toml(5) writes a range.
    public var shownRange: String? {
        func shown(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }
        switch self {
        case .integer(let range), .integers(let range): return "\(range.lowerBound) to \(range.upperBound)"
        case .number(let range), .numbers(let range): return "\(shown(range.lowerBound)) to \(shown(range.upperBound))"
        case .bool, .text, .texts, .choice: return nil
        }
    }
}

extension Setting where Value == Int {
    public static func integer(_ key: String, default value: Int, in range: ClosedRange<Int>, reload: SettingReload, shownRange: String? = nil) -> Setting {
        Setting(key: key, kind: .integer(range), defaultValue: value, reload: reload, shownDefault: String(value), shownRange: shownRange)
    }

    /// The file's value, checked against the range; nil when the file does not set it.
    public func read(_ reader: ConfigReader) throws(ConfigError) -> Int? {
        guard case .integer(let range) = kind else { preconditionFailure("\(key) is declared as an integer") }
        return try reader.integer(key, in: range)
    }
}

extension Setting where Value == Double {
    public static func number(_ key: String, default value: Double, in range: ClosedRange<Double>, reload: SettingReload) -> Setting {
        let shown = value == value.rounded() ? String(Int(value)) : String(value)
        return Setting(key: key, kind: .number(range), defaultValue: value, reload: reload, shownDefault: shown)
    }

    public func read(_ reader: ConfigReader) throws(ConfigError) -> Double? {
        guard case .number(let range) = kind else { preconditionFailure("\(key) is declared as a number") }
        return try reader.number(key, in: range)
    }
}

extension Setting where Value == Int? {
    /// A whole number whose default nookd works out (from another key, or none).
    public static func integer(_ key: String, in range: ClosedRange<Int>, reload: SettingReload, shownDefault: String? = nil) -> Setting {
        Setting(key: key, kind: .integer(range), defaultValue: nil, reload: reload, shownDefault: shownDefault)
    }

    public func read(_ reader: ConfigReader) throws(ConfigError) -> Int? {
        guard case .integer(let range) = kind else { preconditionFailure("\(key) is declared as an integer") }
        return try reader.integer(key, in: range)
    }
}

extension Setting where Value == Double? {
    /// A number with no value of its own by default: nookd goes without, or works one out.
    public static func number(_ key: String, in range: ClosedRange<Double>, reload: SettingReload, shownDefault: String? = nil) -> Setting {
        Setting(key: key, kind: .number(range), defaultValue: nil, reload: reload, shownDefault: shownDefault)
    }

    public func read(_ reader: ConfigReader) throws(ConfigError) -> Double? {
        guard case .number(let range) = kind else { preconditionFailure("\(key) is declared as a number") }
        return try reader.number(key, in: range)
    }
}

extension Setting where Value == [Int] {
    public static func integers(_ key: String, default value: [Int], in range: ClosedRange<Int>, reload: SettingReload, shownDefault: String? = nil) -> Setting {
        Setting(key: key, kind: .integers(range), defaultValue: value, reload: reload, shownDefault: shownDefault)
    }

    public func read(_ reader: ConfigReader) throws(ConfigError) -> [Int]? {
        guard case .integers(let range) = kind else { preconditionFailure("\(key) is declared as whole numbers") }
        return try reader.integers(key, in: range)
    }
}

extension Setting where Value == [Double]? {
    public static func numbers(_ key: String, in range: ClosedRange<Double>, reload: SettingReload, shownDefault: String? = nil) -> Setting {
        Setting(key: key, kind: .numbers(range), defaultValue: nil, reload: reload, shownDefault: shownDefault)
    }

    public func read(_ reader: ConfigReader) throws(ConfigError) -> [Double]? {
        guard case .numbers(let range) = kind else { preconditionFailure("\(key) is declared as numbers") }
        return try reader.numbers(key, in: range)
    }
}

extension Setting where Value == Bool {
    public static func bool(_ key: String, default value: Bool, reload: SettingReload) -> Setting {
        Setting(key: key, kind: .bool, defaultValue: value, reload: reload, shownDefault: String(value))
    }

    public func read(_ reader: ConfigReader) throws(ConfigError) -> Bool? { try reader.bool(key) }
}

extension Setting where Value == Bool? {
    /// Yes, no, or unset: nookd decides from what it finds.
    public static func bool(_ key: String, reload: SettingReload, shownDefault: String? = nil) -> Setting {
        Setting(key: key, kind: .bool, defaultValue: nil, reload: reload, shownDefault: shownDefault)
    }

    public func read(_ reader: ConfigReader) throws(ConfigError) -> Bool? { try reader.bool(key) }
}

extension Setting where Value == String {
    /// Text with a default of its own.
    public static func text(_ key: String, default value: String, reload: SettingReload) -> Setting {
        Setting(key: key, kind: .text, defaultValue: value, reload: reload, shownDefault: "\"\(value)\"")
    }

    public static func choice(_ key: String, among choices: [String], default value: String, reload: SettingReload) -> Setting {
        Setting(key: key, kind: .choice(choices), defaultValue: value, reload: reload, shownDefault: value)
    }

    public func read(_ reader: ConfigReader) throws(ConfigError) -> String? {
        if case .choice(let choices) = kind { return try reader.choice(key, among: choices) }
        return try reader.string(key)
    }
}

extension Setting where Value == String? {
    /// Text with no value of its own by default: nookd works one out, or goes without.
    public static func text(_ key: String, reload: SettingReload, shownDefault: String? = nil) -> Setting {
        Setting(key: key, kind: .text, defaultValue: nil, reload: reload, shownDefault: shownDefault)
    }

    /// One of `choices`, with no value of its own by default (required, or worked out).
    public static func choice(_ key: String, among choices: [String], reload: SettingReload, shownDefault: String? = nil) -> Setting {
        Setting(key: key, kind: .choice(choices), defaultValue: nil, reload: reload, shownDefault: shownDefault)
    }

    public func read(_ reader: ConfigReader) throws(ConfigError) -> String? {
        if case .choice(let choices) = kind { return try reader.choice(key, among: choices) }
        return try reader.string(key)
    }
}

extension Setting where Value == [String] {
    public static func texts(_ key: String, default value: [String], reload: SettingReload, shownDefault: String? = nil) -> Setting {
        let shown = shownDefault ?? (value.isEmpty ? nil : value.map { "\"\($0)\"" }.joined(separator: ", "))
        return Setting(key: key, kind: .texts, defaultValue: value, reload: reload, shownDefault: shown)
    }

    public func read(_ reader: ConfigReader) throws(ConfigError) -> [String]? { try reader.strings(key) }
}


extension SettingDeclaration {
    /// The tables of `settings`' keys in the order they first appear (`http` of `http.listen`,
    /// `lcdproc.keys` of `lcdproc.keys.*`): what the error about a key in an unknown table lists.
    public static func tables(of settings: [SettingDeclaration]) -> [String] {
        var tables: [String] = []
        for setting in settings {
            let table = setting.key.split(separator: ".").dropLast().joined(separator: ".")
            if !tables.contains(table) { tables.append(table) }
        }
        return tables
    }
}
