#if canImport(Glibc)
import Glibc
#endif

/// Keeps a long-running process's resident set to the code it runs (nookd; and
/// nook-mqtt, which calls it once its broker session is set up). Start-up (the runtime, config,
/// fontconfig, the first frame) touches code it never runs again, and the kernel maps up to
/// 64 KiB of neighbouring pages around each fault in a file mapping: most of a 6 MiB text
/// segment ends up resident. Once nookd has started, its executable mappings' pages are dropped
/// from its page tables (the page cache keeps them: what runs again comes back as a minor
/// fault), and `MADV_RANDOM` keeps readahead from bringing in neighbours of a page read again
/// from disk. The resident memory it saves is in docs/benchmarks.md.
public enum FaultAround {
    /// A file mapping of this process as `/proc/self/smaps` describes it.
    public struct FileMapping: Equatable, Sendable {
        public var start: UInt
        public var end: UInt
        /// `r-xp`, `r--p`, `rw-p`…
        public var permissions: String
        public var path: String
        /// Whether the mapping may hold a page of this process's own (copy-on-write: relocated
        /// RELRO, text relocations, a debugger's breakpoint), resident or swapped out. Dropping
        /// such a page loses what was written to it; a mapping whose block does not say
        /// `Anonymous` and `Swap` are both 0 counts as holding one. `Private_Dirty` is not read:
        /// it also counts a file's own pages not yet written back (a binary just installed or
        /// built), which are the file's, not a copy.
        public var hasPrivatePages: Bool

        public var isReadOnly: Bool { permissions.utf8.dropFirst().first == UInt8(ascii: "-") }
        public var isExecutable: Bool { permissions.utf8.dropFirst(2).first == UInt8(ascii: "x") }
    }

    /// The file mappings (a path starting with `/`) in `/proc/<pid>/smaps` text. A mapping is
    /// judged at the end of its block: a private copy shows under `Anonymous` (resident) or
    /// `Swap` (swapped out).
    public static func fileMappings(smaps text: some Collection<UInt8>) -> [FileMapping] {
        var result: [FileMapping] = []
        var current: FileMapping?
        var zeroCounters = 0
        func finish() {
            guard var mapping = current else { return }
            mapping.hasPrivatePages = zeroCounters < 2
            result.append(mapping)
            current = nil
        }
        for line in text.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.contains(UInt8(ascii: "-")), first.allSatisfy({ $0 == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }) {
                // A mapping's header: start-end perms offset dev inode path.
                finish()
                zeroCounters = 0
                let range = first.split(separator: UInt8(ascii: "-"))
                guard fields.count >= 6, fields[5].first == UInt8(ascii: "/"), fields[1].count == 4, range.count == 2,
                      let start = UInt(String(decoding: range[0], as: UTF8.self), radix: 16),
                      let end = UInt(String(decoding: range[1], as: UTF8.self), radix: 16), end > start else { continue }
                let path = String(decoding: line[fields[5].startIndex...], as: UTF8.self)
                current = FileMapping(start: start, end: end, permissions: String(decoding: fields[1], as: UTF8.self), path: path, hasPrivatePages: true)
            } else if current != nil, fields.count >= 2, fields[1].elementsEqual(CollectionOfOne(UInt8(ascii: "0"))),
                      first.elementsEqual("Anonymous:".utf8) || first.elementsEqual("Swap:".utf8) {
                zeroCounters += 1
            }
        }
        finish()
        return result
    }

    /// Whether pages of a file mapping at `path` may be dropped: only the executable's and the
    /// shared objects', which the loader mapped for the process's whole life. Any other file (a
    /// font FreeType maps while a face is open) may be unmapped by another thread between the
    /// reading of `/proc/self/maps` and the `madvise`, its range taken by a new anonymous mapping
    /// (a frame, the allocator's block), and `MADV_DONTNEED` zeroes whatever is there then: in
    /// the AddressSanitizer pass an allocator block's header, zeroed, crashed the test process.
    public static func staysMapped(_ path: some StringProtocol, executable: String?) -> Bool {
        if let executable, path == executable { return true }
        let name = path.split(separator: "/").last ?? ""
        return name.hasSuffix(".so") || name.contains(".so.")
    }

    /// This process's file mappings as `/proc/self/smaps` describes them now; nil when it cannot
    /// be read.
    public static func currentMappings() -> [FileMapping]? {
        (try? readRegularFile("/proc/self/smaps", limit: 16 << 20)).map { fileMappings(smaps: $0) }
    }

    /// This process's executable, as its mappings name it.
    static var executablePath: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard let count = try? systemCall("readlink", subject: "/proc/self/exe", { readlink("/proc/self/exe", &buffer, buffer.count - 1) }),
              count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Of `mappings`, the read-only ones that may be dropped: no private page (a relocation),
    /// and of a file that stays mapped (``staysMapped(_:executable:)``).
    public static func cleanAndStayingMapped(_ mappings: [FileMapping], executable: String?) -> [FileMapping] {
        mappings.filter { $0.permissions == "r--p" && !$0.hasPrivatePages && staysMapped($0.path, executable: executable) }
    }

    /// Advises `MADV_RANDOM` on every read-only file mapping of this process (the executable's,
    /// each shared library's, the font files mapped so far) and drops the pages of the executable
    /// ones that hold no private page; returns how many mappings took the advice. Writable
    /// mappings (DRM and fbdev buffers among them) are left alone.
    @discardableResult
    /// - Parameter mappings: as ``currentMappings()`` read them, or nil to read them now.
    public static func disableForReadOnlyFileMappings(_ mappings: [FileMapping]? = nil) -> Int {
        // Every mapping is read before any page is dropped: parsing after the executable's text
        // was dropped (it is the first mapping) faulted the parser's code straight back, 64 KiB
        // around each fault.
        guard let mappings = mappings ?? currentMappings() else { return 0 }
        let executable = executablePath
        var advised = 0
        for mapping in mappings where mapping.isReadOnly {
            guard let address = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
            let length = Int(mapping.end - mapping.start)
            guard (try? systemCall("madvise", { madvise(address, length, MADV_RANDOM) })) != nil else { continue }
            advised += 1
            // Text is never written by the program (a position-independent executable has no text
            // relocations), so dropping its pages from this process's page tables loses nothing:
            // the page cache keeps them, and what runs again comes back a page at a time. A text
            // mapping with a private page holds a debugger's breakpoint or a uprobe, which a drop
            // would silently take away: it is left whole. Other files' ranges are only advised:
            // only code the loader mapped stays mapped (``staysMapped(_:executable:)``).
            if isDroppableText(mapping, executable: executable) {
                _ = try? systemCall("madvise", { madvise(address, length, MADV_DONTNEED) })
            }
        }
        return advised
    }

    /// Whether a mapping's pages are dropped as text: executable, read-only, no private page, and
    /// of a file that stays mapped.
    public static func isDroppableText(_ mapping: FileMapping, executable: String?) -> Bool {
        mapping.isExecutable && mapping.isReadOnly && !mapping.hasPrivatePages && staysMapped(mapping.path, executable: executable)
    }

    /// Drops this process's pages of read-only mappings of its executable and shared objects
    /// that hold no private copy (`Anonymous` and `Swap` both 0): shared libraries' symbol tables and
    /// read-only data the loader and start-up read once (1.9 MiB of libcrypto, libstdc++ and libc
    /// in nook-mqtt). A mapping with any private page (relocated RELRO, resident or swapped out)
    /// is left whole: dropping it would lose the relocations. Like text, what is read again comes
    /// back from the page cache. Returns how many mappings were dropped.
    @discardableResult
    /// - Parameter mappings: as ``currentMappings()`` read them, or nil to read them now.
    public static func dropCleanReadOnlyData(_ mappings: [FileMapping]? = nil) -> Int {
        guard let mappings = mappings ?? currentMappings() else { return 0 }
        var dropped = 0
        for mapping in cleanAndStayingMapped(mappings, executable: executablePath) {
            guard let address = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
            if (try? systemCall("madvise", { madvise(address, Int(mapping.end - mapping.start), MADV_DONTNEED) })) != nil { dropped += 1 }
        }
        return dropped
    }
}
