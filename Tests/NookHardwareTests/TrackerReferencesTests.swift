import Foundation
import NookTestTraits
import Testing

/// Code and tests say what things do, not which issue asked for them: an issue number in a
/// comment, a test's name or a file's name means nothing to a newcomer who has no tracker.
@Suite("Names and comments carry no issue numbers", .cpuBound)
struct TrackerReferencesTests {
    static let citation = try! NSRegularExpression(pattern: #"\b[Ii]ssues? #?[0-9]+\b|\bfunc issue[0-9]+_|@Suite\("Issue"#)

    static func citations(in text: String) -> [Int] {
        var lines: [Int] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(line)
            if citation.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil { lines.append(number + 1) }
        }
        return lines
    }

    @Test func noSourceOrTestCitesAnIssueNumber() throws {
        var found: [String] = []
        for directory in ["Sources", "Tests"] {
            let root = repository + "/" + directory
            let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
            for file in files where file.hasSuffix(".swift") && !file.hasSuffix("TrackerReferencesTests.swift") && !file.hasSuffix("DocumentationTests.swift") {
                if file.lowercased().contains("issue") { found.append("\(directory)/\(file): named after an issue") }
                let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
                found += Self.citations(in: text).map { "\(directory)/\(file):\($0)" }
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    @Test func theScanFindsCitationsAndPassesOtherNumbers() {
        #expect(Self.citations(in: "// Ends reach the journal (issue 23).") == [1])
        #expect(Self.citations(in: "x\n/// Issues 15 and 16: trimming") == [2])
        #expect(Self.citations(in: "@Test func issue19_theClock() {}") == [1])
        #expect(Self.citations(in: "/// `#42` or 42 is a history entry; UAX #15 bounds marks; 16 issues of a magazine").isEmpty)
    }
}
