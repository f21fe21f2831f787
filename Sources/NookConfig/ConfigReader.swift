/// Typed, checked access to a ``ConfigDocument``: each getter names the key and its line when
/// the value has the wrong type or range, and ``rejectUnknownKeys()`` catches typos.
public final class ConfigReader {
    public let document: ConfigDocument
    private var read: Set<String> = []
    /// When set, the only keys a getter may read (a program's table of its keys, or the part
    /// of the program reading now), and who that is.
    private var table: ConfigKeyTable?
    private var tableOwner: String?
    /// Tables another program reads (``leave(tables:)``): their headers are not unknown.
    private var left: Set<String> = []

    public init(_ document: ConfigDocument) {
        self.document = document
    }

    /// From now on, a getter asked for a key outside `table` throws: the table is the one
    /// list of what the program reads, and a key missing from it is a bug to catch in tests.
    /// `owner`: the part of the program that may read only `table` (its own keys), named in the
    /// error about a key it does not declare.
    public func restrict(to table: ConfigKeyTable, owner: String? = nil) {
        (self.table, tableOwner) = (table, owner)
    }

    /// An error about `key`, pointing at its line if the file sets it.
    public func error(_ key: String, _ message: String) -> ConfigError {
        ConfigError(source: document.source, line: document[key]?.line, key: key, message: message)
    }

    private func value(_ key: String) throws(ConfigError) -> ConfigValue? {
        if let table, !table.contains(key) {
            throw error(key, tableOwner.map { "is read by \($0), which does not declare it" } ?? "is read but missing from the program's table of keys")
        }
        read.insert(key)
        return document[key]?.value
    }

    public func string(_ key: String) throws(ConfigError) -> String? {
        switch try value(key) {
        case nil: return nil
        case .string(let text)?: return text
        case let other?: throw error(key, "must be a string in quotes, got \(other.typeName)")
        }
    }

    public func bool(_ key: String) throws(ConfigError) -> Bool? {
        switch try value(key) {
        case nil: return nil
        case .bool(let flag)?: return flag
        case let other?: throw error(key, "must be true or false, got \(other.typeName)")
        }
    }

    public func integer(_ key: String, in range: ClosedRange<Int>) throws(ConfigError) -> Int? {
        switch try value(key) {
        case nil: return nil
        case .integer(let number)?:
            guard range.contains(number) else { throw error(key, "must be from \(range.lowerBound) to \(range.upperBound), got \(number)") }
            return number
        case let other?: throw error(key, "must be a whole number, got \(other.typeName)")
        }
    }

    public func number(_ key: String, in range: ClosedRange<Double>) throws(ConfigError) -> Double? {
        let number: Double
        switch try value(key) {
        case nil: return nil
        case .integer(let whole)?: number = Double(whole)
        case .float(let fraction)?: number = fraction
        case let other?: throw error(key, "must be a number, got \(other.typeName)")
        }
        guard range.contains(number) else { throw error(key, "must be from \(range.lowerBound) to \(range.upperBound), got \(number)") }
        return number
    }

    public func strings(_ key: String) throws(ConfigError) -> [String]? {
        switch try value(key) {
        case nil: return nil
        case .array(let values)?:
            var texts: [String] = []
            for item in values {
                guard case .string(let text) = item else { throw error(key, "must be an array of strings, but holds \(item.typeName)") }
                texts.append(text)
            }
            return texts
        case let other?: throw error(key, "must be an array of strings, got \(other.typeName)")
        }
    }

    public func integers(_ key: String, in range: ClosedRange<Int>) throws(ConfigError) -> [Int]? {
        switch try value(key) {
        case nil: return nil
        case .array(let values)?:
            var numbers: [Int] = []
            for item in values {
                guard case .integer(let number) = item, range.contains(number) else {
                    throw error(key, "must be an array of whole numbers from \(range.lowerBound) to \(range.upperBound), but holds \(item)")
                }
                numbers.append(number)
            }
            return numbers
        case let other?: throw error(key, "must be an array of whole numbers, got \(other.typeName)")
        }
    }

    public func numbers(_ key: String, in range: ClosedRange<Double>) throws(ConfigError) -> [Double]? {
        switch try value(key) {
        case nil: return nil
        case .array(let values)?:
            var numbers: [Double] = []
            for item in values {
                let number: Double
                switch item {
                case .integer(let whole): number = Double(whole)
                case .float(let fraction): number = fraction
                default: throw error(key, "must be an array of numbers, but holds \(item.typeName)")
                }
                guard range.contains(number) else { throw error(key, "must be an array of numbers from \(range.lowerBound) to \(range.upperBound), but holds \(number)") }
                numbers.append(number)
            }
            return numbers
        case let other?: throw error(key, "must be an array of numbers, got \(other.typeName)")
        }
    }

    /// A string that must be one of `choices`.
    public func choice(_ key: String, among choices: [String]) throws(ConfigError) -> String? {
        guard let text = try string(key) else { return nil }
        guard choices.contains(text) else {
            throw error(key, "must be one of \(choices.joined(separator: ", ")), got \"\(text)\"")
        }
        return text
    }

    /// Marks every key in `tables` as read: tables another program of the board reads from
    /// the same file and checks itself.
    public func leave(tables: [String]) {
        left.formUnion(tables)
        for key in document.entries.map({ $0.key }) {
            let table = key.split(separator: ".").dropLast().joined(separator: ".")
            if tables.contains(table) { read.insert(key) }
        }
    }

    /// Keys set in `tables` (and nowhere else) that no getter asked for: the first is an error
    /// naming it; then the first header under one of `tables` that is not one of them. For a
    /// program that reads only its own tables of a shared file.
    public func rejectUnknownKeys(in tables: [String]) throws(ConfigError) {
        for (key, entry) in document.entries where !read.contains(key) {
            let table = key.split(separator: ".").dropLast().joined(separator: ".")
            let top = String(key.split(separator: ".").first ?? "")
            guard tables.contains(table) || tables.contains(top) || tables.contains(key) else { continue }
            let message = tables.contains(table) ? "is not a known setting"
                : table.isEmpty ? "must be a table ([\(key)]), not a value"
                : "is in an unknown table [\(table)] (known: \(tables.map { "[\($0)]" }.joined(separator: ", ")))"
            throw ConfigError(source: document.source, line: entry.line, key: key, message: message)
        }
        // A header with no key under it, by the same rule: a table of the program's own is
        // refused when unknown, another program's table is left alone.
        for (name, line) in document.tables where !tables.contains(name) && !left.contains(name) {
            guard tables.contains(String(name.split(separator: ".").first ?? "")) else { continue }
            throw unknownTable(name, line: line, known: tables)
        }
    }

    /// Throws for the first key in the file that no getter asked for: a typo or a key that
    /// does not exist, which would otherwise be silently ignored; then for the first table
    /// header that is neither in `tables` nor left to another program.
    public func rejectUnknownKeys(known tables: [String]) throws(ConfigError) {
        for (key, entry) in document.entries where !read.contains(key) {
            let table = key.split(separator: ".").dropLast().joined(separator: ".")
            let hint = tables.contains(table) || table.isEmpty
                ? "is not a known setting"
                : "is in an unknown table [\(table)] (known: \(tables.map { "[\($0)]" }.joined(separator: ", ")))"
            throw ConfigError(source: document.source, line: entry.line, key: key, message: hint)
        }
        // A table with no key under it (`[bogus]` alone) is as unknown as one with keys.
        for (name, line) in document.tables where !tables.contains(name) && !left.contains(name) {
            throw unknownTable(name, line: line, known: tables)
        }
    }

    private func unknownTable(_ name: String, line: Int, known tables: [String]) -> ConfigError {
        let known = tables.isEmpty ? "the file takes no tables" : "known: " + tables.map { "[\($0)]" }.joined(separator: ", ")
        return ConfigError(source: document.source, line: line, key: name, message: "is not a known table (\(known))")
    }
}
