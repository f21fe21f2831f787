import Foundation

/// The lists of routes and topics users read (a man page's section, a table of docs/*.md), read
/// for the tests that hold them to the bridges' tables, and the comparison those tests make.
public enum DocumentedLists {
    /// ``differences(rows:listed:in:)``, or that the list was not found at all.
    public static func disagreements(rows: [String], listed: [String], in list: String) -> [String] {
        listed.isEmpty ? ["\(list) lists nothing: its list was not found"] : differences(rows: rows, listed: listed, in: list)
    }

    /// What one side has and the other lacks, each named, for a failure's message.
    public static func differences(rows: [String], listed: [String], in list: String) -> [String] {
        let (rowSet, listedSet) = (Set(rows), Set(listed))
        var found = rows.filter { !listedSet.contains($0) }.map { "\($0): a row that \(list) does not list" }
        found += listed.filter { !rowSet.contains($0) }.map { "\($0): listed in \(list), but no row of the table" }
        var seen: Set<String> = []
        for line in listed where !seen.insert(line).inserted { found.append("\(line): listed twice in \(list)") }
        return found
    }

    /// The items of a man page's section (`.Sh ROUTES` up to the next `.Sh`), each
    /// `.It Li GET Ta Li /healthz Ta native` as its cells without their `Li`: `GET /healthz native`.
    public static func manPageItems(_ text: String, section: String) -> [String] {
        guard let start = text.range(of: "\n.Sh \(section)\n") else { return [] }
        let rest = text[start.upperBound...]
        let body = rest.range(of: "\n.Sh ").map { rest[..<$0.lowerBound] } ?? rest
        return body.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix(".It ") else { return nil }
            return line.dropFirst(".It ".count).components(separatedBy: " Ta ").map { cell in
                cell.hasPrefix("Li ") ? String(cell.dropFirst(3)) : cell
            }.joined(separator: " ")
        }
    }

    /// A section of a Markdown text, from `## heading` up to the next `## `.
    public static func markdownSection(_ text: String, heading: String) -> Substring {
        guard let start = text.range(of: "\n## \(heading)\n") else { return "" }
        let rest = text[start.upperBound...]
        return rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
    }
}
