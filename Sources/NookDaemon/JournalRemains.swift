import NookProtocol

/// What a damaged journal line held, read from what is left of it, so that recovery reports what
/// was lost by its records rather than by a count of the bytes: an `app-set-all` of 64 apps is one
/// record of several kilobytes, not hundreds of lost records.
///
/// A record's JSON starts with the key that names its kind, and JSON escapes every quote inside a
/// string, so a kind's opening (`{"apps":[`, `{"app":{"name":`) found in the text is that record's
/// own, even when the checksum or a later byte is wrong.
enum JournalRemains {
    /// "one record of 6213 bytes: an app-set of 64 apps (clock, weather, power and 61 more), by
    /// its text", or, where nothing of the kind is left, "one line of N bytes, whose kind of record
    /// cannot be read from it". `line` has no newline; `bytes` counts it with its newline, if it had one.
    static func described(_ line: ArraySlice<UInt8>, bytes: Int) -> String {
        let size = "\(bytes) byte\(bytes == 1 ? "" : "s")"
        guard let held = held(line) else { return "one line of \(size), whose kind of record cannot be read from it" }
        return "one record of \(size): \(held)"
    }

    /// The record's kind and contents from its JSON when that still parses (a changed byte inside
    /// a string), else from the openings left in its text.
    static func held(_ line: ArraySlice<UInt8>) -> String? {
        guard let open = line.firstIndex(of: UInt8(ascii: "{")) else { return nil }
        let body = line[open...]
        if let json = try? JSONValue.parse(body), let held = held(json) { return held + ", by its text" }
        let text = Array(body)
        func starts(_ prefix: String) -> Bool { text.starts(with: Array(prefix.utf8)) }
        if starts(#"{"apps":["#) {
            let names = appNames(text)
            return "an app-set of " + apps(names) + ", by what is left of its text"
        }
        if starts(#"{"app":{"#) { return "an app set or updated" + appNames(text).prefix(1).map { " (\($0))" }.joined() }
        if starts(#"{"appRemoved":"#) { return "an app's removal" }
        if starts(#"{"seq":"#) { return "a card's arrival or update" }
        if starts(#"{"shown":"#) { return "a card's showing" }
        if starts(#"{"ended":"#) { return "a card's end" }
        if starts(#"{"snoozed":"#) { return "a card's snooze" }
        if starts(#"{"unsnoozed":"#) { return "the end of a card's snooze" }
        return nil
    }

    private static func held(_ json: JSONValue) -> String? {
        func id(_ key: String) -> String? { json[key]?.text.map(LogText.short) }
        if let id = id("shown") { return "a card's showing (\(id))" }
        if let id = id("ended") { return "a card's end (\(id))" }
        if let id = id("unsnoozed") { return "the end of a card's snooze (\(id))" }
        if let id = id("snoozed") { return "a card's snooze (\(id))" }
        if let name = id("appRemoved") { return "an app's removal (\(name))" }
        if let name = json["app"]?["name"]?.text { return "an app set or updated (\(LogText.short(name)))" }
        if case .array(let items)? = json["apps"] {
            return "an app-set of " + apps(items.map { $0["app"]?["name"]?.text.map(LogText.short) ?? "?" })
        }
        if json["seq"] != nil, let activity = json["activity"] {
            return "a card's arrival or update" + (activity["id"]?.text.map { " (\(LogText.short($0)))" } ?? "")
        }
        return nil
    }

    /// "64 apps (clock, weather, power and 61 more)".
    private static func apps(_ names: [String]) -> String {
        let shown = names.prefix(3).joined(separator: ", ") + (names.count > 3 ? " and \(names.count - 3) more" : "")
        return "\(names.count) app\(names.count == 1 ? "" : "s")" + (names.isEmpty ? "" : " (\(shown))")
    }

    /// The names after each `{"app":{"name":"` in `text`: each app of an array opens so.
    private static func appNames(_ text: [UInt8]) -> [String] {
        let marker = Array(#"{"app":{"name":""#.utf8)
        var names: [String] = []
        var index = 0
        while index + marker.count <= text.count {
            guard text[index..<(index + marker.count)].elementsEqual(marker) else {
                index += 1
                continue
            }
            var end = index + marker.count
            while end < text.count, text[end] != UInt8(ascii: "\"") {
                end += text[end] == UInt8(ascii: "\\") ? 2 : 1
            }
            let raw = [UInt8(ascii: "\"")] + text[(index + marker.count)..<min(end, text.count)] + [UInt8(ascii: "\"")]
            names.append((try? JSONValue.parse(raw))?.text.map(LogText.short) ?? "?")
            index = end
        }
        return names
    }
}
