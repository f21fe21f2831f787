import Foundation
import NookTestTraits
import Testing

/// CI's AddressSanitizer pass runs its end-to-end tests against the release programs, then the
/// suites that `asan_program_suites` in `Hardware/dev/test` names against ASan builds of them
/// (P6, docs/testing.md). A suite renamed or removed would shrink that pass silently: Swift
/// Testing passes a filter that matches nothing.
@Suite("P6 the suites CI runs against the ASan programs", .cpuBound)
struct SanitizerProgramSuitesTests {
    @Test func p6_everySuiteTheSanitizerPassRunsAgainstASanProgramsExists() throws {
        let script = try String(contentsOfFile: repository + "/Hardware/dev/test", encoding: .utf8)
        let line = try #require(script.split(separator: "\n").first { $0.hasPrefix("asan_program_suites=") })
        let open = try #require(line.firstIndex(of: "(")), close = try #require(line.firstIndex(of: ")"))
        let names = line[line.index(after: open)..<close].split(separator: "|").map(String.init)
        #expect(names.count >= 5, "\(line)")
        let tests = repository + "/Tests"
        let sources = try #require(FileManager.default.enumerator(atPath: tests)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
            .map { try String(contentsOfFile: tests + "/" + $0, encoding: .utf8) }
            .joined(separator: "\n")
        for name in names {
            #expect(sources.contains("struct \(name) {") || sources.contains("struct \(name) :"), "no test suite \(name) (Hardware/dev/test's asan_program_suites)")
        }
    }
}
