import Foundation
import NookProtocol
import NookTestTraits
import Testing

/// docs/architecture.md's "Adding an operation" against the sources (C1): the recipe's steps
/// are the files an operation is written in, one file a step, found by what each step writes
/// (the line of `visit(_:)`, the row, the handler, nookctl's command row); no file but step 1's
/// lists every operation, and the tests that do are the ones the recipe names. A step added to
/// the recipe without code that needs it, or a list of operations added to the code without a
/// step, fails here.
@Suite("C1 the recipe for adding an operation names the files an operation is written in")
struct OperationRecipeTests {
    static let root = BuiltProducts.repository

    /// What each step of the recipe writes, in the recipe's order: a pattern found in exactly
    /// one file for each operation (the command only for one nookctl offers).
    static let pieces: [(what: String, pattern: @Sendable (NookOperation.Name) -> String)] = [
        ("its line of visit(_:)", { #"case \.\#($0)\b[^\n]*visitor\.visit\("# }),
        ("its row", { #"public let \#($0) = Row<"# }),
        ("its handler", { #"OperationHandler\(\\\.\w+\.\#($0)\)"# }),
        ("its nookctl command row", { #"\(\.\#($0), \w+\.self\)"# }),
    ]

    /// Whether a file spells this operation as Swift names a case, a member or a key path.
    static func spells(_ name: NookOperation.Name, in text: String) -> Bool {
        matches(#"(\.|case |let |\\\.\w+\.)\#(name)\b"#, text)
    }

    static func matches(_ pattern: String, _ text: String) -> Bool {
        (try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]))?
            .firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// A step's path (`Sources/NookDaemon/*.swift`): `*` is any part of one file name.
    static func path(_ file: String, isIn step: String) -> Bool {
        matches("^" + NSRegularExpression.escapedPattern(for: step).replacingOccurrences(of: #"\*"#, with: "[^/]*") + "$", file)
    }

    /// The recipe's section of docs/architecture.md.
    static func recipe() throws -> String {
        let text = try String(contentsOfFile: root + "/docs/architecture.md", encoding: .utf8)
        let start = try #require(text.range(of: "\n## Adding an operation\n"))
        let rest = text[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
    }

    /// The path each numbered step starts with.
    static func steps(in recipe: String) -> [String] {
        recipe.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ", maxSplits: 1)
            guard words.count == 2, words[0].hasSuffix("."), Int(words[0].dropLast()) != nil, words[1].hasPrefix("`") else { return nil }
            return words[1].dropFirst().split(separator: "`").first.map(String.init)
        }
    }

    /// The tests the recipe names as those that name a request of every operation.
    static func sampleTests(in recipe: String) -> Set<String> {
        guard let start = recipe.range(of: "name a request of every operation") else { return [] }
        let sentence = recipe[start.upperBound...].prefix { $0 != "." }
        return Set(sentence.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) })
    }

    /// Every Swift file under `directory` of the repository, by its path from the repository.
    static func swiftFiles(under directory: String) throws -> [(path: String, text: String)] {
        let files = FileManager.default.enumerator(atPath: root + "/" + directory)?.compactMap { $0 as? String } ?? []
        return try files.filter { $0.hasSuffix(".swift") }.sorted().map { file in
            (directory + "/" + file, try String(contentsOfFile: root + "/" + directory + "/" + file, encoding: .utf8))
        }
    }

    @Test func c1_eachStepOfTheRecipeIsTheOneFileEachOperationWritesThatPieceIn() throws {
        let steps = Self.steps(in: try Self.recipe())
        #expect(steps.count == Self.pieces.count, "the recipe has \(steps.count) steps, an operation is written in \(Self.pieces.count) kinds of file: \(steps)")
        let sources = try Self.swiftFiles(under: "Sources")
        var stepsUsed = Set<Int>()
        for name in NookOperation.Name.allCases {
            var files: [String] = []
            for (index, piece) in Self.pieces.enumerated() {
                let found = sources.filter { Self.matches(piece.pattern(name), $0.text) }.map(\.path)
                let expected = index == 3 && name.commandWords == nil ? 0 : 1
                #expect(found.count == expected, "\(name.rawValue): \(piece.what) is in \(found.count) files, not \(expected): \(found)")
                for file in found {
                    let inStep = steps.indices.contains(index) && Self.path(file, isIn: steps[index])
                    #expect(inStep, "\(name.rawValue): \(piece.what) is in \(file), not where step \(index + 1) of the recipe says")
                    stepsUsed.insert(index)
                }
                files += found
            }
            #expect(Set(files).count == files.count, "\(name.rawValue): two steps write one file: \(files)")
        }
        #expect(stepsUsed == Set(steps.indices), "steps no operation is written in: \(Set(steps.indices).subtracting(stepsUsed).map { steps[$0] })")
        // The operation the recipe's examples take: three files, none for nookctl.
        let appSetAll = sources.filter { file in Self.pieces.contains { Self.matches($0.pattern(.appSetAll), file.text) } }.map(\.path)
        #expect(appSetAll == ["Sources/NookDaemon/AppRequests.swift", "Sources/NookProtocol/AppOperations.swift", "Sources/NookProtocol/Operations.swift"])
    }

    @Test func c1_noFileButTheRecipesFirstListsEveryOperationAndTheTestsThatDoAreNamed() throws {
        let recipe = try Self.recipe()
        let first = try #require(Self.steps(in: recipe).first)
        let listing = { (files: [(path: String, text: String)]) in
            files.filter { file in NookOperation.Name.allCases.allSatisfy { Self.spells($0, in: file.text) } }.map(\.path)
        }
        #expect(listing(try Self.swiftFiles(under: "Sources")) == [first], "files that list every operation, which adding one must touch")
        let tests = listing(try Self.swiftFiles(under: "Tests")).map { ($0 as NSString).lastPathComponent.replacingOccurrences(of: ".swift", with: "") }
        #expect(Set(tests) == Self.sampleTests(in: recipe), "tests that name every operation, against the recipe's")
    }

    /// The readings above find what they look for, and only that: a recipe with a step more, or
    /// a switch over every operation, would be seen.
    @Test func c1_theReadingsOfTheRecipeAndTheSourcesSeeWhatTheyLookFor() {
        let recipe = "text\n1. `Sources/A.swift`: one\n   2. not a step\n2. `Sources/B/*Rows.swift`, its concern's\n\nThe tests that name a request "
            + "of every operation say so: `ATests` and `BTests`. Other `CTests`.\n"
        #expect(Self.steps(in: recipe) == ["Sources/A.swift", "Sources/B/*Rows.swift"])
        #expect(Self.sampleTests(in: recipe) == ["ATests", "BTests"])
        #expect(Self.path("Sources/B/AppRows.swift", isIn: "Sources/B/*Rows.swift"))
        #expect(!Self.path("Sources/B/C/AppRows.swift", isIn: "Sources/B/*Rows.swift"))
        #expect(Self.matches(Self.pieces[2].pattern(.appSetAll), #"OperationHandler(\.apps.appSetAll) { daemon, apps, reply in"#))
        #expect(!Self.matches(Self.pieces[2].pattern(.appSet), #"OperationHandler(\.apps.appSetAll) { daemon, apps, reply in"#))
        #expect(Self.matches(Self.pieces[0].pattern(.appSet), "        case .appSet(let app): visitor.visit(Self.table.apps.appSet, app)"))
        #expect(Self.matches(Self.pieces[3].pattern(.appSet), "        (.appSet, AppSet.self),"))
        #expect(Self.spells(.historyClear, in: "case .historyClear: 1") && !Self.spells(.history, in: "case .historyClear: 1"))
    }
}
