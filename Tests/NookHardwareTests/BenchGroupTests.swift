import Foundation
import NookTestTraits
import Testing

/// nook-bench's groups: each one main.swift runs alone is in the table `--help` prints and a name
/// that is no group's is refused by, so a typo never falls through to every figure (hours).
@Suite("nook-bench's groups are the ones its --help lists", .ownThreads)
struct BenchGroupTests {
    @Test func everyGroupRunAloneIsListedAndEveryListedGroupRuns() throws {
        let main = try String(contentsOfFile: repository + "/Sources/nook-bench/main.swift", encoding: .utf8)
        let run = Set(main.matches(of: /CommandLine\.arguments\.dropFirst\(\)\.first == "([a-z-]+)"/).map { String($0.output.1) })
        let table = try #require(main.firstRange(of: "let groups: KeyValuePairs<String, String> = [").map { main[$0.upperBound...] })
        let listed = Set(table.prefix { $0 != "]" }.matches(of: /\n\s+"([a-z-]+)": "/).map { String($0.output.1) })
        #expect(run.count >= 20, "\(run.sorted())")
        #expect(run == listed, "run alone but not listed: \(run.subtracting(listed).sorted()); listed but not run: \(listed.subtracting(run).sorted())")
    }
}
