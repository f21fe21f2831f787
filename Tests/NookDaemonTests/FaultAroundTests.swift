import Foundation
@testable import NookDaemon
import NookSystem
import NookTestTraits
import Testing

/// nookd asks the kernel not to map neighbouring pages around each fault in its
/// read-only file mappings, so its resident set is the code it runs.
// Reading and splitting this process's smaps (half a megabyte with the whole suite's threads)
// computes for seconds in a debug build: on the computing tests' thread, not the pool.
@Suite("N3 idle memory: no fault-around in read-only file mappings", .cpuBound)
struct FaultAroundTests {
    @Test(.notUnderQEMUUser("qemu-user takes madvise's advice as a hint it drops, so the kernel never marks the mappings"))
    func n3_readOnlyFileMappingsTakeRandomAccessAdviceAndWritableOnesAreLeftAlone() throws {
        #expect(FaultAround.disableForReadOnlyFileMappings() > 0)
        let smaps = procFile("/proc/self/smaps")
        var mapping = "", random: [String] = [], writableRandom: [String] = []
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), first.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
                mapping = String(line)
            } else if line.hasPrefix("VmFlags:"), fields.contains("rr") {
                random.append(mapping)
                // Writable file mappings (DRM and fbdev buffers) must keep their advice. Anonymous
                // ones are not looked at: another test's thread may unmap a file between the read of
                // the map and the advice, and the allocator reuse the range (seen under TSan).
                let header = mapping.split(separator: " ", omittingEmptySubsequences: true)
                if header.count >= 6, header[5].hasPrefix("/"), header[1].dropFirst().first == "w" { writableRandom.append(mapping) }
            }
        }
        #expect(random.contains { $0.contains("libc.so") }, "libc's mappings are advised: \(random.prefix(5))")
        #expect(writableRandom.isEmpty, "\(writableRandom)")
        // Code whose pages were dropped still runs: it comes back a page at a time.
        #expect([3, 1, 2].sorted() == [1, 2, 3])
    }

    /// A /proc file to its end (they report a size of 0 and are generated as they are read).
    func procFile(_ path: String) -> String {
        (try? readRegularFile(path, limit: 64 << 20)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}
