import Foundation
import NookTestTraits
import Testing

/// The README stays short and readable, its Quick start stays what CI runs, every rule a test
/// names is written down in the repository, and no link in the docs leads nowhere.
@Suite("Documentation: the README, the contract and the links between the docs", .cpuBound)
struct DocumentationTests {
    static func text(_ path: String) throws -> String {
        try String(contentsOfFile: repository + "/" + path, encoding: .utf8)
    }

    /// README.md and every Markdown file directly in docs/ (docs/man holds the man pages' sources).
    static func markdownFiles() throws -> [String] {
        let guides = try FileManager.default.contentsOfDirectory(atPath: repository + "/docs")
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md"] + guides
    }

    @Test func theReadmeIsAtMost300LinesOfReadableLength() throws {
        let problems = DocumentationRules.readmeProblems(try Self.text("README.md"))
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test func noProseLineOfTheGuidesIsOverlong() throws {
        for path in try Self.markdownFiles() where path.hasPrefix("docs/") {
            let long = DocumentationRules.overlongProseLines(try Self.text(path))
            #expect(long.isEmpty, "\(path): lines \(long) are over \(DocumentationRules.longestLine) characters")
        }
    }

    @Test func theQuickStartIsTheTwoCommandsAndCIRunsTheSecond() throws {
        let commands = DocumentationRules.quickStartCommands(try Self.text("README.md"))
        #expect(commands == ["Hardware/dev/demo", "Hardware/dev/test"], "the Quick start block runs \(commands)")
        for command in commands {
            #expect(FileManager.default.isExecutableFile(atPath: repository + "/" + command), "\(command) exists and runs")
        }
        let ci = DocumentationRules.ciCommand(try Self.text(".ci/run"))
        #expect(ci == commands.last, ".ci/run runs \(ci ?? "nothing"), not the Quick start's second command")
    }

    @Test func everyRuleIDATestNamesIsARuleOfTheContract() throws {
        let rules = DocumentationRules.contractRules(try Self.text("docs/contract.md"))
        var named: [String: String] = [:]
        let tests = repository + "/Tests"
        let files = try #require(FileManager.default.enumerator(atPath: tests)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        for file in files {
            for id in DocumentationRules.ruleIDsInTestNames(try String(contentsOfFile: tests + "/" + file, encoding: .utf8)) {
                named[id] = named[id] ?? file
            }
        }
        #expect(named.count > 50, "the scan finds the IDs the tests name (\(named.count))")
        for (id, file) in named.sorted(by: { $0.key < $1.key }) {
            #expect(rules.contains(id), "\(file) names \(id), which docs/contract.md has no rule for")
        }
    }

    @Test func theContractHasEveryRuleOfTheSpecificationOnce() throws {
        let listed = DocumentationRules.contractRuleList(try Self.text("docs/contract.md"))
        let twice = Dictionary(grouping: listed, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        #expect(twice.isEmpty, "rules written twice: \(twice)")
        let missing = DocumentationRules.specificationRuleIDs.subtracting(listed).sorted()
        let unknown = Set(listed).subtracting(DocumentationRules.specificationRuleIDs).sorted()
        #expect(missing.isEmpty, "docs/contract.md lacks \(missing)")
        #expect(unknown.isEmpty, "docs/contract.md has rules the specification does not: \(unknown)")
    }

    @Test func everyRelativeLinkInTheDocsPointsToAFileThatExists() throws {
        var checked = 0
        for path in try Self.markdownFiles() {
            let directory = (path as NSString).deletingLastPathComponent
            for link in DocumentationRules.relativeLinks(try Self.text(path)) {
                checked += 1
                let target = directory.isEmpty ? link : directory + "/" + link
                let resolved = (repository + "/" + target as NSString).standardizingPath
                #expect(FileManager.default.fileExists(atPath: resolved), "\(path) links to \(link), which does not exist")
                #expect(resolved.hasPrefix(repository + "/"), "\(path) links to \(link), outside the repository")
            }
        }
        #expect(checked > 30, "the scan finds the docs' links (\(checked))")
    }

    @Test func theRulesCatchWhatTheyAreFor() {
        #expect(!DocumentationRules.readmeProblems(String(repeating: "line\n", count: 301)).isEmpty)
        #expect(!DocumentationRules.readmeProblems(String(repeating: "word ", count: 30)).isEmpty)
        #expect(DocumentationRules.readmeProblems("| " + String(repeating: "cell ", count: 40) + "|\n").isEmpty, "a table row may be long")
        #expect(DocumentationRules.quickStartCommands("## Quick start\n\n```sh\na    # one\n     # more\nb\nc\n```\n") == ["a", "b", "c"])
        #expect(DocumentationRules.ciCommand("#!/bin/sh\n# x\nset -e\ncd \"$(dirname \"$0\")/..\"\nexec Hardware/dev/demo\n") == "Hardware/dev/demo")
        #expect(DocumentationRules.ruleIDsInTestNames("@Test func z2_q15_aPanel() {}\n@Suite(\"Q7, Q8 suspend\")\nfunc issue19_x() {}\nfunc e2e_y() {}") == ["Z2", "Q15", "Q7", "Q8"])
        #expect(DocumentationRules.relativeLinks("[a](b.md) [c](https://x) [d](#e) `[f](g.md)` ![h](i.png#j)\n```\n[k](l.md)\n```\n") == ["b.md", "i.png"])
    }
}

/// How the documentation tests read Markdown and Swift; small enough to check on made-up text.
enum DocumentationRules {
    static let longestLine = 120
    static let readmeLines = 300

    /// Every rule ID of the behaviour contract, as the project's specification numbers them.
    static let specificationRuleIDs: Set<String> = {
        let ranges: [(String, Int)] = [("Q", 18), ("R", 6), ("D", 4), ("I", 4), ("C", 4), ("N", 3), ("J", 2), ("U", 5),
                                       ("E", 8), ("L", 5), ("Z", 4), ("W", 1), ("H", 4), ("V", 2), ("T", 3), ("P", 9), ("A", 6)]
        // M's and B's rules are built one at a time: each is named here once work on it lands
        // (the contract says what of a rule is not done yet: M3's icon cache).
        let built: Set<String> = ["M1", "M2", "M3", "M4", "M5", "M6", "B1", "B2", "B3", "B4", "B5", "B6"]
        return Set(ranges.flatMap { letter, count in (1...count).map { "\(letter)\($0)" } }).union(built)
    }()

    static func readmeProblems(_ text: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var problems: [String] = []
        if lines.count > readmeLines { problems.append("\(lines.count) lines, more than \(readmeLines)") }
        for (number, line) in lines.enumerated() where line.count > longestLine && !line.hasPrefix("|") {
            problems.append("line \(number + 1) has \(line.count) characters")
        }
        return problems
    }

    /// Line numbers of prose lines (not code, not table rows) longer than `longestLine`.
    static func overlongProseLines(_ text: String) -> [Int] {
        var inCode = false
        var long: [Int] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") { inCode.toggle(); continue }
            if !inCode && !line.hasPrefix("|") && line.count > longestLine { long.append(number + 1) }
        }
        return long
    }

    /// The commands of the first code block under "## Quick start": lines that do not start with
    /// white space (those continue the comment before), without their comments.
    static func quickStartCommands(_ readme: String) -> [String] {
        guard let section = readme.range(of: "## Quick start") else { return [] }
        let after = readme[section.upperBound...]
        guard let open = after.range(of: "```sh\n"), let close = after[open.upperBound...].range(of: "```") else { return [] }
        return after[open.upperBound..<close.lowerBound].split(separator: "\n")
            .filter { !($0.first?.isWhitespace ?? true) }
            .map { line in
                let command = line.firstRange(of: "#").map { line[..<$0.lowerBound] } ?? line[...]
                return command.trimmingCharacters(in: .whitespaces)
            }
    }

    /// What `.ci/run` hands itself over to: its `exec` line's command.
    static func ciCommand(_ script: String) -> String? {
        script.split(separator: "\n").last { $0.hasPrefix("exec ") }.map { String($0.dropFirst(5)).trimmingCharacters(in: .whitespaces) }
    }

    /// The IDs of the contract's rules, in order: each rule is a list item `- **ID Name.**`.
    static func contractRuleList(_ contract: String) -> [String] {
        contract.split(separator: "\n").compactMap { line in
            line.firstMatch(of: /^- \*\*([A-Z][0-9]{1,2})[ ]/).map { String($0.output.1) }
        }
    }

    static func contractRules(_ contract: String) -> Set<String> { Set(contractRuleList(contract)) }

    /// Rule IDs named by tests: the lower-case `q4_` prefixes of function names and the upper-case
    /// IDs that start a suite's name.
    static func ruleIDsInTestNames(_ source: String) -> [String] {
        var ids: [String] = []
        for match in source.matches(of: /func ([A-Za-z0-9_]+)/) {
            for part in match.output.1.split(separator: "_", omittingEmptySubsequences: false).dropLast() {
                guard part.wholeMatch(of: /[a-z][0-9]{1,2}/) != nil else { break }
                ids.append(part.uppercased())
            }
        }
        for match in source.matches(of: /@Suite\("([^"]*)"/) {
            for word in match.output.1.split(separator: " ") {
                let id = word.hasSuffix(",") ? word.dropLast() : word
                guard id.wholeMatch(of: /[A-Z][0-9]{1,2}/) != nil else { break }
                ids.append(String(id))
            }
        }
        return ids
    }

    /// Targets of Markdown links and images outside code, without their `#fragment`, leaving out
    /// links with a scheme and links within the same page.
    static func relativeLinks(_ markdown: String) -> [String] {
        var links: [String] = []
        var inCode = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCode.toggle(); continue }
            if inCode { continue }
            let prose = line.replacing(/`[^`]*`/, with: "")
            for match in prose.matches(of: /\]\(([^)\s]+)\)/) {
                let target = String(match.output.1)
                if target.hasPrefix("#") || target.contains("://") || target.hasPrefix("mailto:") { continue }
                links.append(String(target.split(separator: "#", maxSplits: 1)[0]))
            }
        }
        return links
    }
}
