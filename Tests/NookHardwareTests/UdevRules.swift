/// A reader of udev rules files, enough to check Nook's rules without udev: each rule is a line
/// of comma-separated `KEY[{attribute}]OPERATOR"value"` entries (udev(7)).
struct UdevRule {
    struct Entry: Equatable {
        var key: String
        var attribute: String?
        var op: String
        var value: String
    }

    var line: Int
    var entries: [Entry]

    static let matchKeys: Set<String> = ["ACTION", "DEVPATH", "KERNEL", "NAME", "SYMLINK", "SUBSYSTEM", "DRIVER", "ATTR",
                                         "SYSCTL", "KERNELS", "SUBSYSTEMS", "DRIVERS", "ATTRS", "TAGS", "ENV", "TAG", "TEST", "PROGRAM", "RESULT"]
    static let assignKeys: Set<String> = ["NAME", "SYMLINK", "OWNER", "GROUP", "MODE", "SECLABEL", "ATTR", "SYSCTL", "ENV", "TAG",
                                          "RUN", "LABEL", "GOTO", "IMPORT", "OPTIONS"]

    var matches: [Entry] { entries.filter { $0.op == "==" || $0.op == "!=" } }
    var assignments: [Entry] { entries.filter { $0.op != "==" && $0.op != "!=" } }

    func value(_ key: String) -> String? { assignments.first { $0.key == key }?.value }

    /// Parses a rules file; throws naming the line for anything udev would reject.
    static func parse(_ text: String) throws -> [UdevRule] {
        var rules: [UdevRule] = []
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            var entries: [Entry] = []
            var rest = Substring(line)
            while !rest.isEmpty {
                guard let opRange = ["==", "!=", "+=", "-=", ":=", "="].lazy.compactMap({ rest.range(of: $0) }).min(by: { $0.lowerBound < $1.lowerBound }) else {
                    throw UdevError(line: offset + 1, "no operator in '\(rest)'")
                }
                var keyText = rest[..<opRange.lowerBound].trimmingCharacters(in: .whitespaces)
                var op = String(rest[opRange])
                if op == "=", rest[opRange.upperBound...].hasPrefix("=") { op = "==" }
                var attribute: String?
                if let brace = keyText.firstIndex(of: "{") {
                    guard keyText.hasSuffix("}") else { throw UdevError(line: offset + 1, "unclosed '{' in \(keyText)") }
                    attribute = String(keyText[keyText.index(after: brace)..<keyText.index(before: keyText.endIndex)])
                    keyText = String(keyText[..<brace])
                }
                let afterOp = rest[rest.index(opRange.lowerBound, offsetBy: op.count)...]
                guard afterOp.first == "\"", let close = afterOp.dropFirst().firstIndex(of: "\"") else {
                    throw UdevError(line: offset + 1, "the value of \(keyText) must be in double quotes")
                }
                let value = String(afterOp[afterOp.index(after: afterOp.startIndex)..<close])
                let isMatch = op == "==" || op == "!="
                guard (isMatch ? matchKeys : assignKeys).contains(keyText) else {
                    throw UdevError(line: offset + 1, "\(keyText) cannot be used with \(op)")
                }
                entries.append(Entry(key: keyText, attribute: attribute, op: op, value: value))
                rest = afterOp[afterOp.index(after: close)...].drop { $0 == " " }
                if rest.first == "," { rest = rest.dropFirst().drop { $0 == " " } } else if !rest.isEmpty {
                    throw UdevError(line: offset + 1, "expected ',' between entries, found '\(rest)'")
                }
            }
            rules.append(UdevRule(line: offset + 1, entries: entries))
        }
        return rules
    }

    /// Whether the rule's match keys all hold for `device` (udev's glob patterns with `|` alternatives).
    func matches(_ device: FakeDevice) -> Bool {
        matches.allSatisfy { entry in
            let candidates: [String]
            switch entry.key {
            case "SUBSYSTEM": candidates = [device.subsystem]
            case "KERNEL": candidates = [device.kernel]
            case "DRIVERS": candidates = device.parentDrivers
            case "ATTR": candidates = [device.attributes[entry.attribute ?? ""]].compactMap { $0 }
            case "ATTRS": candidates = device.parentAttributes.compactMap { $0[entry.attribute ?? ""] }
            case "ENV": candidates = [device.properties[entry.attribute ?? ""]].compactMap { $0 }
            default: candidates = []
            }
            let hit = candidates.contains { value in entry.value.split(separator: "|").contains { glob(String($0), value) } }
            return entry.op == "==" ? hit : !hit
        }
    }
}

/// A device as udev would see it: its own name and attributes, and its parents' drivers.
struct FakeDevice: CustomStringConvertible {
    var subsystem: String
    var kernel: String
    var attributes: [String: String] = [:]
    var parentDrivers: [String] = []
    var parentAttributes: [[String: String]] = []
    /// udev properties (`ENV{...}`) set by earlier rules and builtins such as input_id.
    var properties: [String: String] = [:]
    var description: String { "\(subsystem)/\(kernel)" }
}

struct UdevError: Error, CustomStringConvertible {
    let description: String
    init(line: Int, _ message: String) { description = "line \(line): \(message)" }
}

/// fnmatch-style matching of `*`, `?` and `[...]`, as udev uses for match values.
func glob(_ pattern: String, _ text: String) -> Bool {
    let p = Array(pattern), t = Array(text)
    func match(_ i: Int, _ j: Int) -> Bool {
        if i == p.count { return j == t.count }
        switch p[i] {
        case "*": return (j...t.count).contains { match(i + 1, $0) }
        case "?": return j < t.count && match(i + 1, j + 1)
        case "[":
            guard let close = p[(i + 1)...].firstIndex(of: "]"), j < t.count else { return false }
            let set = p[(i + 1)..<close]
            var k = set.startIndex, hit = false
            while k < set.endIndex {
                if k + 2 < set.endIndex, set[k + 1] == "-" {
                    if set[k] <= t[j] && t[j] <= set[k + 2] { hit = true }
                    k += 3
                } else {
                    if set[k] == t[j] { hit = true }
                    k += 1
                }
            }
            return hit && match(close + 1, j + 1)
        default: return j < t.count && p[i] == t[j] && match(i + 1, j + 1)
        }
    }
    return match(0, 0)
}
