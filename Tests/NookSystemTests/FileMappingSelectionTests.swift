import NookSystem
import Testing

/// Which file mappings the idle trim may drop, from smaps text: a mapping with any page of its
/// own (resident or swapped out) must be kept, or its relocations are lost; a file's own pages not
/// yet written back (dirty, not anonymous) are no copy.
@Suite("N3 idle memory: smaps selection of clean file mappings")
struct FileMappingSelectionTests {
    static let smaps = """
        7f0000000000-7f0000004000 r--p 00000000 08:01 1234 /usr/lib/x86_64-linux-gnu/libswapped.so.1
        Size:                 16 kB
        Rss:                   0 kB
        Private_Clean:         0 kB
        Private_Dirty:         0 kB
        Anonymous:             0 kB
        Swap:                  8 kB
        SwapPss:               8 kB
        VmFlags: rd mr mw me ac sd
        7f0000004000-7f0000008000 r--p 00004000 08:01 1234 /usr/lib/x86_64-linux-gnu/libclean.so.1
        Size:                 16 kB
        Rss:                  16 kB
        Private_Clean:        16 kB
        Private_Dirty:         0 kB
        Anonymous:             0 kB
        Swap:                  0 kB
        VmFlags: rd mr mw me sd
        7f0000008000-7f000000c000 r-xp 00008000 08:01 1234 /usr/lib/x86_64-linux-gnu/libtextrel.so.1
        Private_Dirty:         4 kB
        Anonymous:             4 kB
        Swap:                  0 kB
        7f000000c000-7f0000010000 r--p 0000c000 08:01 1234 /usr/lib/x86_64-linux-gnu/librelro.so.1
        Private_Dirty:         4 kB
        Anonymous:             4 kB
        Swap:                  0 kB
        7f0000010000-7f0000014000 r--p 00000000 08:01 99 /usr/share/fonts/truncated block.ttf
        Anonymous:             0 kB
        7f0000014000-7f0000018000 rw-p 00000000 00:00 0 
        Anonymous:             0 kB
        Swap:                  0 kB
        Private_Dirty:         0 kB
        7f0000018000-7f000001c000 r-xp 00000000 08:01 77 /usr/bin/nook-mqtt
        Private_Dirty:         0 kB
        Anonymous:             0 kB
        Swap:                  0 kB
        7f000001c000-7f0000020000 r-xp 00000000 08:01 78 /usr/bin/nook-http
        Private_Dirty:        16 kB
        Anonymous:             0 kB
        Swap:                  0 kB
        """

    @Test func n3_onlyMappingsWithNoPrivateResidentSwappedOrDirtyPageAreClean() {
        let mappings = FaultAround.fileMappings(smaps: Array(Self.smaps.utf8))
        #expect(mappings.map(\.path) == [
            "/usr/lib/x86_64-linux-gnu/libswapped.so.1", "/usr/lib/x86_64-linux-gnu/libclean.so.1",
            "/usr/lib/x86_64-linux-gnu/libtextrel.so.1", "/usr/lib/x86_64-linux-gnu/librelro.so.1",
            "/usr/share/fonts/truncated block.ttf", "/usr/bin/nook-mqtt", "/usr/bin/nook-http",
        ])
        let clean = mappings.filter { !$0.hasPrivatePages }.map(\.path)
        // Swapped-out relocations (Anonymous 0, Swap 8) are private pages all the same; so are
        // text relocations and a block that does not say. A binary just built or installed is
        // dirty in the page cache until written back (Private_Dirty, not Anonymous): its own pages.
        #expect(clean == ["/usr/lib/x86_64-linux-gnu/libclean.so.1", "/usr/bin/nook-mqtt", "/usr/bin/nook-http"])
        let swapped = mappings[0]
        #expect(swapped.start == 0x7f00_0000_0000 && swapped.end == 0x7f00_0000_4000 && swapped.permissions == "r--p")
        #expect(swapped.isReadOnly && !swapped.isExecutable && mappings[2].isExecutable)
    }

    /// A font file FreeType mapped may be unmapped by another thread before the drop, and its
    /// range reused by an anonymous mapping that `MADV_DONTNEED` would zero: only the
    /// executable's and shared objects' mappings, which stay for the process's life, are dropped.
    @Test func n3_onlyTheExecutableAndSharedObjectsAreDroppedNeverAFileThatMayBeUnmapped() {
        let mappings = FaultAround.fileMappings(smaps: Array(Self.smaps.utf8))
        #expect(FaultAround.cleanAndStayingMapped(mappings, executable: "/usr/bin/nook-mqtt").map(\.path)
                == ["/usr/lib/x86_64-linux-gnu/libclean.so.1"], "r--p only; the executable's mapping here is r-xp")
        var font = mappings[4]
        font.hasPrivatePages = false
        #expect(FaultAround.cleanAndStayingMapped([font], executable: "/usr/bin/nook-mqtt").isEmpty, "a clean font mapping is kept")
        for path in ["/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2", "/usr/lib/libfoo.so", "/usr/bin/nookd"] {
            #expect(FaultAround.staysMapped(path, executable: "/usr/bin/nookd"), "\(path)")
        }
        for path in ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/tmp/nook-relro-1", "/usr/lib/locale/C.utf8/LC_CTYPE",
                     "/usr/share/so.data", "/usr/bin/nook-mqtt"] {
            #expect(!FaultAround.staysMapped(path, executable: "/usr/bin/nookd"), "\(path)")
        }
    }
}
