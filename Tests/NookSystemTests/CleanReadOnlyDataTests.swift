import Foundation
import NookSystem
import NookTestTraits
import Testing

/// nook-mqtt drops its clean read-only file pages (libraries' symbol tables and
/// read-only data) once idle; pages holding relocations must survive it.
// Reads and splits this process's smaps twice: computing for seconds in a debug build.
@Suite("N3 idle memory: clean read-only data dropped, relocations kept", .cpuBound)
struct CleanReadOnlyDataTests {
    @Test func n3_cleanReadOnlyMappingsAreDroppedAndRelocatedOnesKept() throws {
        // A mapping made as the loader makes RELRO: a file mapped privately, one page written
        // (this process's own copy), then read-only. A sanitizer's runtime may leave the test
        // binary with no such mapping of its own, so the test makes one it can check byte for byte.
        // Named as a shared object is, so only its private page keeps it (``FaultAround/staysMapped``).
        let path = NSTemporaryDirectory() + "libnook-relro-\(getpid()).so"
        try Data(repeating: 0x61, count: 8192).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let fd = open(path, O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        let relocated = try #require(mmap(nil, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0).flatMap { $0 == MAP_FAILED ? nil : $0 })
        defer { munmap(relocated, 8192) }
        relocated.storeBytes(of: 0x7A, as: UInt8.self)
        #expect(mprotect(relocated, 8192, PROT_READ) == 0)
        let before = Self.readOnlyMappings()
        #expect(before.contains { $0.anonymousKiB > 0 }, "a relocated (RELRO) mapping exists to be kept")
        #expect(FaultAround.dropCleanReadOnlyData() > 0)
        #expect(relocated.load(as: UInt8.self) == 0x7A, "the written page is still this process's copy")
        #expect(relocated.load(fromByteOffset: 4096, as: UInt8.self) == 0x61)
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
        // Read as the kernel generates it (Foundation's reader stops short on a large /proc file:
        // a ThreadSanitizer process has thousands of mappings).
        guard let bytes = try? readRegularFile("/proc/self/smaps", limit: 64 << 20) else { return [] }
        let text = String(decoding: bytes, as: UTF8.self)
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

    /// A debugger's breakpoint (or a uprobe) is a private copy of a text page: the drop of text
    /// pages must keep it, or the breakpoint silently goes away (found with gdb on nook-http).
    @Test(.notUnderQEMUUser("qemu-user maps a guest's code without the host's execute permission, so smaps shows no text mapping"))
    func n3_aTextPageWithADebuggersBreakpointIsKept() throws {
        let path = NSTemporaryDirectory() + "libnook-text-\(getpid()).so"
        try Data(repeating: 0x90, count: 8192).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let fd = open(path, O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        let text = try #require(mmap(nil, 8192, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0).flatMap { $0 == MAP_FAILED ? nil : $0 })
        defer { munmap(text, 8192) }
        // As ptrace's POKETEXT writes an int3: the page becomes this process's own copy.
        #expect(mprotect(text, 8192, PROT_READ | PROT_WRITE) == 0)
        text.storeBytes(of: 0xCC, as: UInt8.self)
        #expect(mprotect(text, 8192, PROT_READ | PROT_EXEC) == 0)
        let mapping = try #require(FaultAround.fileMappings(smaps: try readRegularFile("/proc/self/smaps", limit: 64 << 20))
            .first { $0.start == UInt(bitPattern: text) })
        #expect(mapping.isExecutable && mapping.hasPrivatePages && !FaultAround.isDroppableText(mapping, executable: nil))
        #expect(FaultAround.disableForReadOnlyFileMappings() > 0)
        #expect(text.load(as: UInt8.self) == 0xCC, "the breakpoint is still there")
        #expect(text.load(fromByteOffset: 4096, as: UInt8.self) == 0x90)
    }
}
