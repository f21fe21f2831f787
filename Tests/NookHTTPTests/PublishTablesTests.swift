import Foundation
import NookActivities
import NookHTTP
import NookProtocol
import NookTestTraits
import Testing

/// The tables of docs/publishing.md, read from the file and checked row by row against the
/// mapping code: what a user reads is what the board does.
@Suite struct PublishTablesTests {
    static let document: String = {
        let file = #filePath
        let root = String(file[..<file.range(of: "/Tests/")!.lowerBound])
        return (try? String(contentsOfFile: root + "/docs/publishing.md", encoding: .utf8)) ?? ""
    }()

    /// The rows of the table whose header row starts with `| first |`, as trimmed cells.
    static func table(_ first: String) -> [[String]] {
        let lines = document.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let header = lines.firstIndex(where: { $0.hasPrefix("| \(first) |") }) else { return [] }
        return lines[(header + 2)...].prefix { $0.hasPrefix("|") }.map { line in
            line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast().map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// The backquoted words of a cell.
    static func codes(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    static func stays(_ presentation: NookActivity.Presentation, _ dwell: Duration) -> String {
        if case .blocker = presentation { return "until" }
        let seconds = dwell.nookSeconds
        return (seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)) + " s"
    }

    static func tintName(_ tint: NookTint?) -> String { tint.map(\.description) ?? "accent" }

    @Test func h2_theNtfyPriorityTableIsWhatTheMappingDoes() throws {
        let rows = Self.table("ntfy priority")
        #expect(rows.count == 5)
        var covered = Set<Int>()
        for row in rows {
            for name in Self.codes(row[0]) {
                let message = try NtfyMessage.fromRequest(HTTPRequest(method: "POST", path: "/t", headers: [(name: "Priority", value: name)], body: Array("m".utf8)), topic: "t").get()
                covered.insert(message.priority)
                let card = NtfyMapping.card(for: message, id: NookActivityID(), module: nil).activity
                #expect(card.priority.description == row[1], "priority \(name)")
                #expect(Self.stays(card.presentation, card.dwell).hasPrefix(row[2].hasPrefix("until") ? "until" : row[2]), "priority \(name)")
                #expect(Self.tintName(card.tint) == row[3], "priority \(name)")
            }
        }
        #expect(covered == [1, 2, 3, 4, 5])
    }

    @Test func h2_theGotifyPriorityTableIsWhatTheMappingDoes() {
        let rows = Self.table("Gotify priority")
        #expect(rows.count == 5)
        var covered = Set<Int>()
        for row in rows {
            let bounds = Self.codes(row[0]).compactMap { Int($0) }
            let priorities: [Int?] = bounds.isEmpty ? [nil] : Array(bounds[0]...(bounds.last ?? bounds[0])).map { $0 }
            for priority in priorities {
                if let priority { covered.insert(priority) }
                let card = GotifyMapping.card(for: GotifyMessage(message: "m", priority: priority), id: NookActivityID(), module: nil).activity
                #expect(card.priority.description == row[1], "Gotify \(String(describing: priority))")
                #expect(Self.stays(card.presentation, card.dwell).hasPrefix(row[2].hasPrefix("until") ? "until" : row[2]), "Gotify \(String(describing: priority))")
                #expect(Self.tintName(card.tint) == row[3], "Gotify \(String(describing: priority))")
            }
        }
        #expect(covered == Set(0...10))
    }

    @Test func h3_theSeverityTableIsWhatTheMappingDoes() {
        let rows = Self.table("`severity` label")
        #expect(rows.count == 5)
        for row in rows {
            let labels: [String?] = row[0].hasPrefix("anything else") ? [nil, "sev-unknown"] : Self.codes(row[0])
            #expect(!labels.isEmpty)
            for label in labels {
                let mapped = AlertCards.row(forSeverity: label)
                #expect(mapped.priority.description == row[1], "severity \(String(describing: label))")
                #expect(Self.stays(mapped.presentation, mapped.dwell).hasPrefix(row[2].hasPrefix("until") ? "until" : row[2]), "severity \(String(describing: label))")
                #expect(mapped.tint.description == row[3], "severity \(String(describing: label))")
                #expect(Self.codes(row[4]) == [mapped.symbol], "severity \(String(describing: label))")
            }
        }
    }

    @Test func h2_theTagTableIsExactlyTheMappingsTags() {
        let rows = Self.table("Tag")
        #expect(rows.count == NtfyMapping.tagIcons.count)
        for row in rows {
            guard let tag = Self.codes(row[0]).first, let mapped = NtfyMapping.tagIcons[tag] else {
                Issue.record("the documented tag \(row[0]) is not mapped")
                continue
            }
            #expect(Self.codes(row[1]) == [mapped.symbol], "tag \(tag)")
            #expect((mapped.tint?.description ?? "—") == row[2], "tag \(tag)")
        }
    }
}

/// publishing.md's senders table: every sender the page gives an example of has a row, and every
/// row names tests that exist (`Type.function`, a `struct Type` or `class Type` in Tests/ with
/// `func function(`), so a claim that something works is never without its proof.
@Suite struct PublishSendersClaimsTests {
    static let tests: String = {
        let root = BuiltProducts.repository + "/Tests"
        let files = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".swift") }
        return files.compactMap { try? String(contentsOfFile: root + "/" + $0, encoding: .utf8) }.joined(separator: "\n")
    }()

    /// Whether `function` is declared inside the type `type` in the test sources (after the
    /// type's declaration and before the next type's).
    static func exists(type: String, function: String) -> Bool {
        for declaration in ["struct \(type) ", "struct \(type):", "class \(type) ", "class \(type):", "enum \(type) "] {
            guard let start = tests.range(of: declaration) else { continue }
            let rest = tests[start.upperBound...]
            let next = ["\n@Suite", "\nstruct ", "\nfinal class ", "\nclass ", "\nenum "].compactMap { rest.range(of: $0)?.lowerBound }.min() ?? rest.endIndex
            if rest[..<next].contains("func \(function)(") { return true }
        }
        return false
    }

    @Test func h2_everySenderTheDocsSayWorksNamesATestThatExists() throws {
        let rows = PublishTablesTests.table("Sender")
        #expect(rows.count >= 8, "the senders table: \(rows)")
        for row in rows {
            let proofs = PublishTablesTests.codes(row[2])
            #expect(!proofs.isEmpty, "\(row[0]) names no test")
            for proof in proofs {
                let parts = proof.split(separator: ".").map(String.init)
                let found = parts.count == 2 && Self.exists(type: parts[0], function: parts[1])
                #expect(found, "\(row[0]): \(proof) is no test in Tests/")
            }
        }
        // Each bold sender under "Senders, one example each" is a row of the table.
        // (Into a plain optional first: Swift 6.0.3's #require cannot expand an optional chain of calls.)
        let found = PublishTablesTests.document.components(separatedBy: "## Senders, one example each").last?.components(separatedBy: "\n## ").first
        let section = try #require(found)
        let named = section.matches(of: /\n\*\*([^*]+)\*\*/).map { String($0.1) }
        #expect(named.count >= 7, "\(named)")
        for sender in named {
            let covered = rows.contains { $0[0].hasPrefix(sender) }
            #expect(covered, "**\(sender)** has an example and no row in the senders table")
        }
        // Home Assistant's ntfy integration is claimed only with the run of Home Assistant itself.
        let integration = try #require(rows.first { $0[0].contains("ntfy integration") })
        #expect(integration[1].hasPrefix("yes") && integration[2].contains("NtfyRealClientsTests.m5_homeAssistants"), "\(integration)")
    }
}
