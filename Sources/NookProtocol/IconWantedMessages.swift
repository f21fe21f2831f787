/// One LaMetric icon id in an `icons-wanted` stream (M3):
/// `{"event":"icon-wanted","icon":"a1234","id":"1234"}`. `icon` is the name as the sender sent
/// it, `id` its digits: the name of the file a fetcher writes (`1234.png` or `1234.gif`), which
/// nookd looks up for `1234`, `i1234` and `a1234` alike.
public struct IconWantedMessage: Sendable, Equatable {
    public var icon: String
    public var id: String

    public init(icon: String, id: String) { (self.icon, self.id) = (icon, id) }

    /// The digits of a LaMetric icon id (`1234`, `i1234` still, `a1234` animated), or nil for
    /// any other name: only those name an icon on LaMetric's icon gallery, where a source's
    /// URL finds it. 1 to 9 digits without a leading zero (LaMetric's ids have 1 to 6): `0001`
    /// would be another file than `1` for the same icon.
    public static func lametricID(_ name: String) -> String? {
        var digits = Substring(name)
        if let letter = digits.first, letter == "i" || letter == "a" { digits = digits.dropFirst() }
        guard (1...9).contains(digits.utf8.count), digits.first != "0", digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return String(digits)
    }

    public var json: JSONValue {
        .object([("event", .string("icon-wanted")), ("icon", .string(icon)), ("id", .string(id))])
    }

    /// Nil for a line that is not an icon-wanted event, or whose id is not one.
    public init?(json: JSONValue) {
        guard let reader = try? FieldReader(json, path: "event"), (try? reader.string("event")) == "icon-wanted",
              let icon = try? reader.requiredString("icon"), let id = try? reader.requiredString("id"),
              Self.lametricID(id) == id else { return nil }
        (self.icon, self.id) = (icon, id)
    }
}

/// `icons-wanted`: the stream is on, and the icon directories nookd looks in now
/// (`daemon.icon_directories`), so that a fetcher can say when it writes where nookd never looks.
public struct IconsWantedAnswer: NookAnswer {
    public var directories: [String]
    public init(directories: [String]) { self.directories = directories }
    public var json: JSONValue { .object([("directories", .array(directories.map { .string($0) }))]) }
    public init(json: JSONValue) throws(ProtocolError) {
        guard case .array(let items)? = json["directories"] else {
            throw ProtocolError(.missingField, field: "result.directories", "is required")
        }
        directories = items.compactMap(\.text)
    }
}
