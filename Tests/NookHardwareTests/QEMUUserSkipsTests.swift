import Foundation
import NookTestTraits
import Testing

/// SPEC P3: the whole suite runs cross-built under qemu-user, and a test that cannot run there
/// is named with the reason. Each skip is `.notUnderQEMUUser("…")` with a sentence saying what
/// qemu-user does differently; a bare or empty one would hide a test with no word why.
@Suite("P3 tests skipped under qemu-user say why", .cpuBound)
struct QEMUUserSkipsTests {
    static let skip = try! NSRegularExpression(pattern: #"\.notUnderQEMUUser\(([^)]*)\)"#)

    /// The argument of each skip in `text`.
    static func reasons(in text: String) -> [String] {
        skip.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    @Test func p3_everyTestSkippedUnderQEMUUserGivesItsReasonInWords() throws {
        var skips: [(file: String, reason: String)] = []
        let root = repository + "/Tests"
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") && !file.hasSuffix("QEMUUserSkipsTests.swift") && !file.hasSuffix("QEMUUser.swift") {
            skips += Self.reasons(in: try String(contentsOfFile: root + "/" + file, encoding: .utf8)).map { (file, $0) }
        }
        #expect(!skips.isEmpty, "no test is skipped under qemu-user: the scan found none")
        for (file, reason) in skips {
            // A quoted sentence of several words, not a variable or an empty string.
            let words = reason.split(separator: " ").count
            #expect(reason.hasPrefix("\"") && reason.hasSuffix("\"") && words >= 5, "\(file): .notUnderQEMUUser(\(reason))")
        }
    }

    @Test func p3_theScanReadsTheReason() {
        #expect(Self.reasons(in: #"@Test(.notUnderQEMUUser("qemu does this")) func a() {}"#) == [#""qemu does this""#])
        #expect(Self.reasons(in: "@Test(.notUnderQEMUUser(\"\"))") == [#""""#])
    }
}
