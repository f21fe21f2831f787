/// Every key a program's config file may hold, in one list: the reader refuses to read a key
/// that is not in it, so a setting cannot be read (and reloaded, and documented) without
/// being listed. A `*` segment matches any one name (`gpio.*.role` for `[gpio.NAME]` tables).
public struct ConfigKeyTable: Sendable {
    public let keys: [String]

    public init(_ keys: [String]) { self.keys = keys }

    /// The table's key that `key` is an instance of (itself, or a pattern with `*`); nil: none.
    public func pattern(of key: String) -> String? {
        if keys.contains(key) { return key }
        let parts = key.split(separator: ".", omittingEmptySubsequences: false)
        return keys.first { pattern in
            let patternParts = pattern.split(separator: ".", omittingEmptySubsequences: false)
            return patternParts.count == parts.count && zip(patternParts, parts).allSatisfy { $0 == "*" || $0 == $1 }
        }
    }

    public func contains(_ key: String) -> Bool { pattern(of: key) != nil }
}
