/// A parsed configuration file: the subset of TOML that Nook's files use — `[table]` headers,
/// `key = value` lines, `#` comments, and values that are strings, integers, floats, booleans
/// or one-line arrays of those. Every key remembers its line, so a later check of its value
/// can say where it is (N1).
public struct ConfigDocument: Sendable {
    public struct Entry: Sendable {
        public var value: ConfigValue
        public var line: Int
    }

    /// Keys by their full dotted path (`display.rotation`), in file order.
    public private(set) var entries: [(key: String, entry: Entry)] = []
    private var index: [String: Int] = [:]
    /// The `[table]` headers, in file order: a table may be written with no key under it, and
    /// an unknown one must be refused all the same (``ConfigReader/rejectUnknownKeys(known:)``).
    public private(set) var tables: [(name: String, line: Int)] = []
    /// The file name used in messages.
    public let source: String

    public init(parsing text: String, source: String = "config") throws(ConfigError) {
        self.source = source
        var table = ""
        var seenTables: Set<String> = []
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            var scanner = Scanner(Array(rawLine.unicodeScalars), line: number, source: source)
            scanner.skipSpaces()
            if scanner.atEndOfContent { continue }
            if scanner.peek == "[" {
                scanner.advance()
                let name = try scanner.readKeyPath()
                scanner.skipSpaces()
                try scanner.expect("]")
                try scanner.expectEndOfLine()
                guard seenTables.insert(name).inserted else {
                    throw ConfigError(source: source, line: number, key: name, message: "table [\(name)] appears twice")
                }
                table = name
                tables.append((name, number))
                continue
            }
            let key = try scanner.readKeyPath()
            scanner.skipSpaces()
            try scanner.expect("=")
            scanner.skipSpaces()
            let value = try scanner.readValue()
            try scanner.expectEndOfLine()
            let path = table.isEmpty ? key : table + "." + key
            guard index[path] == nil else {
                throw ConfigError(source: source, line: number, key: path, message: "'\(path)' is set twice (first on line \(entries[index[path]!].entry.line))")
            }
            index[path] = entries.count
            entries.append((path, Entry(value: value, line: number)))
        }
    }

    public subscript(key: String) -> Entry? {
        index[key].map { entries[$0].entry }
    }

    /// Every key under `table` (`display` gives `display.size`, …).
    public func keys(in table: String) -> [String] {
        entries.map(\.key).filter { $0.hasPrefix(table + ".") }
    }
}

/// A value in a configuration file.
public enum ConfigValue: Hashable, Sendable, CustomStringConvertible {
    case string(String)
    case integer(Int)
    case float(Double)
    case bool(Bool)
    case array([ConfigValue])

    public var typeName: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a number"
        case .bool: "true or false"
        case .array: "an array"
        }
    }

    public var description: String {
        switch self {
        case .string(let text): "\"\(text)\""
        case .integer(let value): "\(value)"
        case .float(let value): "\(value)"
        case .bool(let value): "\(value)"
        case .array(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
        }
    }
}

/// A syntax or value error in a configuration file, naming the file, line and key.
public struct ConfigError: Error, Hashable, Sendable, CustomStringConvertible {
    public var source: String
    public var line: Int?
    public var key: String?
    public var message: String

    public init(source: String, line: Int?, key: String?, message: String) {
        self.source = source
        self.line = line
        self.key = key
        self.message = message
    }

    public var description: String {
        var place = source
        if let line { place += ":\(line)" }
        if let key { return "\(place): \(key): \(message)" }
        return "\(place): \(message)"
    }
}

/// Reads one line of the file.
private struct Scanner {
    let characters: [Unicode.Scalar]
    let line: Int
    let source: String
    var position = 0

    init(_ characters: [Unicode.Scalar], line: Int, source: String) {
        self.characters = characters
        self.line = line
        self.source = source
    }

    var peek: Unicode.Scalar? { position < characters.count ? characters[position] : nil }
    var atEndOfContent: Bool { peek == nil || peek == "#" || peek == "\r" }

    mutating func advance() { position += 1 }

    mutating func skipSpaces() {
        while let character = peek, character == " " || character == "\t" { advance() }
    }

    func error(_ message: String) -> ConfigError {
        ConfigError(source: source, line: line, key: nil, message: message)
    }

    mutating func expect(_ character: Unicode.Scalar) throws(ConfigError) {
        guard peek == character else {
            throw error("expected '\(character)' but found \(peek.map { "'\($0)'" } ?? "the end of the line")")
        }
        advance()
    }

    mutating func expectEndOfLine() throws(ConfigError) {
        skipSpaces()
        guard atEndOfContent else { throw error("unexpected '\(String(String.UnicodeScalarView(characters[position...])))' after the value") }
    }

    /// `name` or `dotted.name` of letters, digits, `_` and `-`.
    mutating func readKeyPath() throws(ConfigError) -> String {
        var parts: [String] = []
        while true {
            skipSpaces()
            var part = ""
            while let character = peek, character.properties.isAlphabetic || ("0"..."9").contains(character) || character == "_" || character == "-" {
                part.unicodeScalars.append(character)
                advance()
            }
            guard !part.isEmpty else { throw error("expected a key name") }
            parts.append(part)
            skipSpaces()
            guard peek == "." else { break }
            advance()
        }
        return parts.joined(separator: ".")
    }

    mutating func readValue() throws(ConfigError) -> ConfigValue {
        switch peek {
        case "\"": return .string(try readBasicString())
        case "'": return .string(try readLiteralString())
        case "[": return try readArray()
        case nil: throw error("a value is missing after '='")
        default: return try readBareValue()
        }
    }

    private mutating func readBasicString() throws(ConfigError) -> String {
        advance()
        var text = ""
        while let character = peek {
            advance()
            switch character {
            case "\"": return text
            case "\\":
                guard let escaped = peek else { break }
                advance()
                switch escaped {
                case "n": text += "\n"
                case "t": text += "\t"
                case "\"": text += "\""
                case "\\": text += "\\"
                case "u":
                    let hex = String(String.UnicodeScalarView(characters[position..<min(characters.count, position + 4)]))
                    guard hex.count == 4, let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) else {
                        throw error("\\u needs four hexadecimal digits")
                    }
                    text.unicodeScalars.append(scalar)
                    position += 4
                default: throw error("unknown escape '\\\(escaped)' in a string")
                }
            default: text.unicodeScalars.append(character)
            }
        }
        throw error("the string is not closed with '\"'")
    }

    private mutating func readLiteralString() throws(ConfigError) -> String {
        advance()
        var text = ""
        while let character = peek {
            advance()
            if character == "'" { return text }
            text.unicodeScalars.append(character)
        }
        throw error("the string is not closed with \"'\"")
    }

    private mutating func readArray() throws(ConfigError) -> ConfigValue {
        advance()
        var values: [ConfigValue] = []
        while true {
            skipSpaces()
            if peek == "]" {
                advance()
                return .array(values)
            }
            values.append(try readValue())
            skipSpaces()
            if peek == "," { advance(); continue }
            guard peek == "]" else { throw error("expected ',' or ']' in the array") }
        }
    }

    private mutating func readBareValue() throws(ConfigError) -> ConfigValue {
        var word = ""
        while let character = peek, character != " ", character != "\t", character != ",", character != "]", character != "#", character != "\r" {
            word.unicodeScalars.append(character)
            advance()
        }
        let digits = String(word.filter { $0 != "_" })
        if word == "true" { return .bool(true) }
        if word == "false" { return .bool(false) }
        if let integer = Int(digits) { return .integer(integer) }
        if digits.hasPrefix("0x"), let integer = Int(digits.dropFirst(2), radix: 16) { return .integer(integer) }
        if digits.hasPrefix("0o"), let integer = Int(digits.dropFirst(2), radix: 8) { return .integer(integer) }
        if let number = Double(digits), number.isFinite { return .float(number) }
        throw error("'\(word)' is not a value: strings need quotes, numbers digits, booleans true or false")
    }
}
