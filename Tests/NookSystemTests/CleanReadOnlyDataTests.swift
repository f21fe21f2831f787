import Foundation
import NookSystem
import Testing

/// Issue 16: nook-mqtt drops its clean read-only file pages (libraries' symbol tables and
/// read-only data) once idle; pages holding relocations must survive it.
@Suite("N3 idle memory: clean read-only data dropped, relocations kept")
struct CleanReadOnlyDataTests {
    @Test func n3_cleanReadOnlyMappingsAreDroppedAndRelocatedOnesKept() throws {
        let before = Self.readOnlyMappings()
        #expect(before.contains { $0.anonymousKiB > 0 }, "a relocated (RELRO) mapping exists to be kept")
        #expect(FaultAround.dropCleanReadOnlyData() > 0)
        let after = Self.readOnlyMappings()
        // Every relocated page is still this process's own copy.
        for mapping in before where mapping.anonymousKiB > 0 {
            #expect(after.first { $0.range == mapping.range }?.anonymousKiB == mapping.anonymousKiB, "\(mapping.range)")
        }
        // Code reaching through relocated tables (protocol witnesses, libc) still runs.
        #expect([3, 1, 2].sorted() == [1, 2, 3] && String(describing: 42) == "42" && strlen("nook") == 4)
    }

    /// `r--p` file mappings of this process: their address range and private (COW) size.
    static func readOnlyMappings() -> [(range: String, anonymousKiB: Int)] {
        guard let text = try? String(contentsOfFile: "/proc/self/smaps", encoding: .utf8) else { return [] }
        var result: [(String, Int)] = []
        var current: String?
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), first.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
                current = fields.count >= 6 && fields[1] == "r--p" && fields[5].hasPrefix("/") ? String(first) : nil
            } else if let range = current, fields.first == "Anonymous:", fields.count >= 2 {
                result.append((range, Int(fields[1]) ?? 0))
                current = nil
            }
        }
        return result
    }
}
