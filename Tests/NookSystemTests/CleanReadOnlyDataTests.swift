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
        let written = try PrivatelyWrittenMapping(name: "relro", fill: 0x61, mark: 0x7A, protection: PROT_READ)
        let relocated = written.address
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
        withExtendedLifetime(written) {}
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
        // As ptrace's POKETEXT writes an int3: the page becomes this process's own copy.
        let breakpoint = try PrivatelyWrittenMapping(name: "text", fill: 0x90, mark: 0xCC, protection: PROT_READ | PROT_EXEC)
        let text = breakpoint.address
        let mapping = try #require(FaultAround.fileMappings(smaps: try readRegularFile("/proc/self/smaps", limit: 64 << 20))
            .first { $0.start == UInt(bitPattern: text) })
        #expect(mapping.isExecutable && mapping.hasPrivatePages && !FaultAround.isDroppableText(mapping, executable: nil))
        #expect(FaultAround.disableForReadOnlyFileMappings() > 0)
        #expect(text.load(as: UInt8.self) == 0xCC, "the breakpoint is still there")
        #expect(text.load(fromByteOffset: 4096, as: UInt8.self) == 0x90)
        withExtendedLifetime(breakpoint) {}
    }
}

/// Two pages of a file filled with `fill`, mapped privately, the first written with `mark` (this
/// process's own copy of it, as the loader's relocations and a debugger's breakpoints make), then
/// left with `protection`. Named as a shared object is, so only that private page can keep it from
/// a drop (``FaultAround/staysMapped(_:executable:)``). Unmapped and removed when released.
final class PrivatelyWrittenMapping {
    static let size = 8192
    let address: UnsafeMutableRawPointer
    private let path: String
    private let descriptor: Int32

    init(name: String, fill: UInt8, mark: UInt8, protection: Int32) throws {
        path = NSTemporaryDirectory() + "libnook-\(name)-\(getpid()).so"
        try Data(repeating: fill, count: Self.size).write(to: URL(fileURLWithPath: path))
        descriptor = open(path, O_RDONLY)
        guard descriptor >= 0, let mapped = mmap(nil, Self.size, protection, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else {
            if descriptor >= 0 { close(descriptor) }
            unlink(path)
            throw MappingFailure(errno: errno)
        }
        address = mapped
        #expect(mprotect(address, Self.size, PROT_READ | PROT_WRITE) == 0)
        address.storeBytes(of: mark, as: UInt8.self)
        #expect(mprotect(address, Self.size, protection) == 0)
    }

    deinit {
        munmap(address, Self.size)
        close(descriptor)
        unlink(path)
    }

    struct MappingFailure: Error { let errno: Int32 }
}

