#if canImport(Glibc)
import Glibc
#endif

/// Keeps a long-running process's resident set to the code it runs (issue 19: nookd; issue 16:
/// nook-mqtt, which calls it once its broker session is set up). Start-up (the runtime, config,
/// fontconfig, the first frame) touches code it never runs again, and the kernel maps up to
/// 64 KiB of neighbouring pages around each fault in a file mapping: most of a 6 MiB text
/// segment ends up resident. Once nookd has started, its executable mappings' pages are dropped
/// from its page tables (the page cache keeps them: what runs again comes back as a minor
/// fault), and `MADV_RANDOM` keeps readahead from bringing in neighbours of a page read again
/// from disk. Measured idle after 100 cards: nookd's own text 7.0 -> 5.9 MiB, RSS 23.0 -> 19.8.
public enum FaultAround {
    /// Advises `MADV_RANDOM` on every read-only file mapping of this process (the executable's,
    /// each shared library's, the font files mapped so far) and drops the pages of the executable
    /// ones; returns how many mappings took the advice. Writable mappings (DRM and fbdev buffers
    /// among them) are left alone.
    @discardableResult
    public static func disableForReadOnlyFileMappings() -> Int {
        guard let text = try? readRegularFile("/proc/self/maps", limit: 4 << 20) else { return 0 }
        var advised = 0
        for line in text.split(separator: UInt8(ascii: "\n")) {
            // start-end perms offset dev inode path
            let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[5].first == UInt8(ascii: "/"), fields[1].count >= 2,
                  fields[1][fields[1].startIndex + 1] == UInt8(ascii: "-") else { continue }
            let range = fields[0].split(separator: UInt8(ascii: "-"))
            guard range.count == 2, let start = UInt(String(decoding: range[0], as: UTF8.self), radix: 16),
                  let end = UInt(String(decoding: range[1], as: UTF8.self), radix: 16), end > start,
                  let address = UnsafeMutableRawPointer(bitPattern: start) else { continue }
            guard madvise(address, Int(end - start), MADV_RANDOM) == 0 else { continue }
            advised += 1
            // Executable text is never written (a position-independent executable has no text
            // relocations), so dropping its pages from this process's page tables loses nothing:
            // the page cache keeps them, and what runs again comes back a page at a time. The
            // read-only data is left mapped: relocated RELRO pages are private copies.
            if fields[1].count >= 3, fields[1][fields[1].startIndex + 2] == UInt8(ascii: "x") {
                _ = madvise(address, Int(end - start), MADV_DONTNEED)
            }
        }
        return advised
    }
    /// Drops this process's pages of read-only file mappings that hold no private copy (smaps'
    /// `Anonymous: 0 kB`): shared libraries' symbol tables and read-only data the loader and
    /// start-up read once (1.9 MiB of libcrypto, libstdc++ and libc in nook-mqtt). A mapping
    /// with any private page (relocated RELRO) is left whole: dropping it would lose the
    /// relocations. Like text, what is read again comes back from the page cache. Returns how
    /// many mappings were dropped.
    @discardableResult
    public static func dropCleanReadOnlyData() -> Int {
        guard let text = try? readRegularFile("/proc/self/smaps", limit: 16 << 20) else { return 0 }
        var dropped = 0
        var candidate: (address: UnsafeMutableRawPointer, length: Int)?
        for line in text.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.contains(UInt8(ascii: "-")), first.allSatisfy({ $0 == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }) {
                // A mapping's header: start-end perms offset dev inode path.
                candidate = nil
                let range = first.split(separator: UInt8(ascii: "-"))
                guard fields.count >= 6, fields[5].first == UInt8(ascii: "/"), Array(fields[1]) == Array("r--p".utf8), range.count == 2,
                      let start = UInt(String(decoding: range[0], as: UTF8.self), radix: 16),
                      let end = UInt(String(decoding: range[1], as: UTF8.self), radix: 16), end > start,
                      let address = UnsafeMutableRawPointer(bitPattern: start) else { continue }
                candidate = (address, Int(end - start))
            } else if let mapping = candidate, Array(first) == Array("Anonymous:".utf8) {
                candidate = nil
                guard fields.count >= 2, Array(fields[1]) == [UInt8(ascii: "0")] else { continue }
                if madvise(mapping.address, mapping.length, MADV_DONTNEED) == 0 { dropped += 1 }
            }
        }
        return dropped
    }
}
