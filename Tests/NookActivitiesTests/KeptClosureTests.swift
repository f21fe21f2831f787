import Foundation
import NookActivities
import NookTestSupport
import NookTestTraits
import Testing

/// Q16: memory stays bounded under any load. A closure kept bare in a `Locked` or a `Mutex`
/// gains two thunks each time `withLock` hands it out unspecialized (``KeptClosure`` says how);
/// kept in a ``KeptClosure`` it stays as it was kept. The scan holds every lock in Sources to it.
@Suite("Q16 a closure kept in a lock is kept in a KeptClosure")
struct KeptClosureTests {
    @Test func q16_aKeptClosureReadFromALockTenThousandTimesIsCalledAsDeepAsAtFirst() {
        let kept = Locked<KeptClosure<@Sendable () -> UInt>?>(KeptClosure { stackAddressHere() })
        let first = kept.withLock { $0 }?.call()
        for _ in 0..<10_000 { _ = kept.withLock { $0 } }
        let last = kept.withLock { $0 }?.call()
        #expect(first != nil && first == last, "where the call's stack was on the first read and after 10,000: \(first ?? 0), \(last ?? 0)")
    }

    @Test(.notUnderQEMUUser("a scan of the source text, the same on every CPU"))
    func q16_aClosureIsKeptInALockOnlyInsideAKeptClosure() throws {
        let findings = try LockedClosureScan.scan(root: LockedClosureScan.sourcesDirectory)
        #expect(findings.isEmpty, "closures kept bare in a lock (keep them in a KeptClosure):\n\(findings.joined(separator: "\n"))")
    }

    @Test func q16_theScanFindsBareClosuresInLocksAndPassesKeptOnes() {
        let lines = [
            "private let a = Locked<(@Sendable (NookActivityID) -> Void)?>(nil)",
            "private let b = Locked<KeptClosure<@Sendable (NookActivityID) -> Void>?>(nil)",
            "private let c = Mutex<(@Sendable (String) -> any LogHandler)?>(nil)",
            "private let d = Locked<[@Sendable () async -> Void]>([])",
            "private let e = Locked<(output: Int, changed: @Sendable () async -> Void)?>(nil)",
            "private let f = Locked<(output: Int, changed: KeptClosure<@Sendable () async -> Void>)?>(nil)",
            "private let g = Locked<SocketServer.Handler?>(nil)",
            "static func takesOpen(_ claim: Locked<MenuClaim?>) -> @Sendable () -> Bool {",
            "/// a `Locked<(@Sendable () -> Void)?>` in a comment",
        ]
        let found = LockedClosureScan.scan(file: "Example.swift", lines: lines, functionAliases: ["Handler"])
        #expect(found == ["Example.swift:1", "Example.swift:3", "Example.swift:5", "Example.swift:7"])
        // Over several lines, and an alias of a function's alias.
        let split = ["private let a = Locked<", "    (@Sendable (Int) -> Void)?", ">(nil)", "typealias Again = SocketServer.Handler",
                     "private let b = Locked<Again?>(nil)", "private let c = Locked<", "    KeptClosure<Again>?", ">(nil)"]
        #expect(LockedClosureScan.scan(file: "Split.swift", lines: split, functionAliases: ["Handler"]) == ["Split.swift:1", "Split.swift:5"])
    }
}

/// Finds each `Locked<…>` and `Mutex<…>` whose value holds a function type outside a
/// `KeptClosure<…>` and an array or dictionary (whose elements a lock hands over as they are):
/// written out (`->`) or as a `typealias` of one declared in Sources.
enum LockedClosureScan {
    static var sourcesDirectory: String {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Tests/NookActivitiesTests/KeptClosureTests.swift
        return parts.joined(separator: "/") + "/Sources"
    }

    static func scan(root: String) throws -> [String] {
        let files = (FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? [])
            .filter { $0.hasSuffix(".swift") }.sorted()
        let texts = try files.map { ($0, try String(contentsOfFile: root + "/" + $0, encoding: .utf8)) }
        let aliases = functionAliases(texts.flatMap { $0.1.split(separator: "\n").map(String.init) })
        #expect(aliases.contains("Handler"), "the scan finds the function typealiases it checks for")
        return texts.flatMap { file, text in
            scan(file: file, lines: text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init), functionAliases: aliases)
        }
    }

    /// The names of the typealiases of function types: written out (`->`), or an alias of one of
    /// those (`typealias Again = SocketServer.Handler`), until no more are found. By the last
    /// part of the name only, so a type elsewhere with the same short name counts as one too:
    /// the safe side for this check.
    static func functionAliases(_ lines: [String], known: Set<String> = []) -> Set<String> {
        var aliases: [(name: String, type: String)] = []
        for line in lines {
            guard let range = line.range(of: "typealias "), let equals = line[range.upperBound...].firstIndex(of: "=") else { continue }
            aliases.append((line[range.upperBound..<equals].trimmingCharacters(in: .whitespaces),
                            line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)))
        }
        var found = known.union(aliases.filter { $0.type.contains("->") }.map(\.name))
        while true {
            let more = aliases.filter { alias in
                !found.contains(alias.name) && found.contains(String(alias.type.split(separator: ".").last ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "?! ")))
            }
            guard !more.isEmpty else { return found }
            found.formUnion(more.map(\.name))
        }
    }

    /// A declaration may run over several lines: the file is read as one text, its `//`
    /// comments left out, and a finding named by the line its `Locked<` or `Mutex<` is on.
    static func scan(file: String, lines: [String], functionAliases: Set<String>) -> [String] {
        let aliases = Self.functionAliases(lines, known: functionAliases)
        let text = lines.map { line in line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? line }.joined(separator: "\n")
        var found: [String] = []
        for opener in ["Locked<", "Mutex<"] {
            var rest = Substring(text)
            while let start = rest.range(of: opener) {
                let argument = bracketed(rest[start.upperBound...])
                if holdsBareFunction(argument, aliases: aliases) {
                    found.append("\(file):\(text[..<start.lowerBound].filter { $0 == "\n" }.count + 1)")
                }
                rest = rest[start.upperBound...]
            }
        }
        return found.sorted { $0.compare($1, options: .numeric) == .orderedAscending }
    }

    /// The text up to the `>` that closes the one just opened (`->`'s `>` is not one).
    private static func bracketed(_ text: Substring) -> Substring {
        var depth = 1
        var previous: Character = " "
        for index in text.indices {
            let character = text[index]
            if character == "<" { depth += 1 }
            if character == ">" && previous != "-" {
                depth -= 1
                if depth == 0 { return text[..<index] }
            }
            previous = character
        }
        return text
    }

    /// Whether `argument`, with its `KeptClosure<…>` and `[…]` parts taken out, names a function.
    private static func holdsBareFunction(_ argument: Substring, aliases: Set<String>) -> Bool {
        var text = String(argument)
        while let kept = text.range(of: "KeptClosure<") {
            let inside = bracketed(text[kept.upperBound...])
            text.removeSubrange(kept.lowerBound..<text.index(after: inside.endIndex == text.endIndex ? text.index(before: text.endIndex) : inside.endIndex))
        }
        var outside = ""
        var squareDepth = 0
        for character in text {
            if character == "[" { squareDepth += 1 } else if character == "]" { squareDepth -= 1 } else if squareDepth == 0 { outside.append(character) }
        }
        if outside.contains("->") { return true }
        let words = outside.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") })
        return words.contains { aliases.contains(String($0)) }
    }
}
