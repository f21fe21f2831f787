#if canImport(Glibc)
import Glibc
#endif
import NookDisplay
import NookRender
import NookTestTraits
import Testing

/// The mock display's frame files (D3) are written from the frame the screen presented, whose
/// pixels it shares: encoding must read them in place, not copy them first (the copy,
/// 2 MiB of fresh pages per file, delayed every frame file and so `notify_to_first_frame`).
@Suite("D3 frame files are encoded from the frame's own pixels", .cpuBound)
struct PNGEncodingTests {
    /// A frame with a pattern, so a round trip can tell pixels apart.
    static func patterned(width: Int, height: Int) -> Frame {
        var frame = Frame(width: width, height: height)
        for index in frame.pixels.indices { frame.pixels[index] = 0xFF00_0000 | UInt32(truncatingIfNeeded: index &* 2_654_435_761) & 0x00FF_FFFF }
        return frame
    }

    @Test func d3_aWrittenFrameReadsBackPixelForPixel() throws {
        let frame = Self.patterned(width: 97, height: 31)
        let path = "/tmp/nook-png-\(getpid())-roundtrip.png"
        defer { unlink(path) }
        try PNG.write(frame, to: path)
        #expect(try PNG.read(from: path) == frame)
        let encoded = try PNG.encode(frame)
        let file = try #require(fopen(path, "rb"))
        defer { fclose(file) }
        var bytes = [UInt8](repeating: 0, count: encoded.count + 1)
        #expect(fread(&bytes, 1, bytes.count, file) == encoded.count)
        #expect(Array(bytes.prefix(encoded.count)) == encoded)
    }

    @Test func d3_writingASharedFrameDoesNotCopyIt() throws {
        // 36 MiB: above glibc's largest mmap threshold, so a copy would always be fresh pages
        // (9,216 page faults on this thread), never heap memory faulted in by an earlier test.
        let frame = Frame(width: 4096, height: 2304, fill: 0xFF20_4060)
        let shared = frame
        let path = "/tmp/nook-png-\(getpid())-shared.png"
        defer { unlink(path) }
        // RUSAGE_THREAD (1; Glibc hides it behind _GNU_SOURCE): this thread's faults only, not
        // those of tests running beside it.
        let thread: Int32 = 1
        var before = rusage(), after = rusage()
        getrusage(thread, &before)
        try PNG.write(shared, to: path)
        getrusage(thread, &after)
        let faults = after.ru_minflt - before.ru_minflt
        #expect(faults < 4_608, "writing the frame faulted \(faults) pages: was it copied?")
        withExtendedLifetime(frame) {}
    }
}

/// One encoding written to several files (the mock's numbered frame file and its
/// `latest.png`), and what goes wrong named by the call and the file.
@Suite("D3 one encoding, several frame files", .cpuBound)
struct PNGSeveralFilesTests {
    @Test func d3_everyFileGetsTheSamePNG() throws {
        let frame = PNGEncodingTests.patterned(width: 64, height: 20)
        let paths = ["/tmp/nook-png-\(getpid())-a.png", "/tmp/nook-png-\(getpid())-b.png"]
        defer { for path in paths { unlink(path) } }
        try PNG.write(frame, to: paths)
        for path in paths { #expect(try PNG.read(from: path) == frame, "\(path)") }
    }

    @Test func d3_aFileThatCannotBeOpenedIsNamed() throws {
        let good = "/tmp/nook-png-\(getpid())-good.png"
        defer { unlink(good) }
        let missing = "/tmp/nook-png-\(getpid())-no-such-directory/frame.png"
        #expect {
            try PNG.write(Frame(width: 4, height: 4), to: [good, missing])
        } throws: { error in
            let text = "\(error)"
            return text.contains("'open'") && text.contains(missing) && text.contains("No such file")
        }
    }

    @Test func d3_aDeviceIsRefusedWithoutBeingWritten() throws {
        #expect {
            try PNG.write(PNGEncodingTests.patterned(width: 32, height: 32), to: ["/dev/full"])
        } throws: { error in
            "\(error)".contains("/dev/full") && "\(error)".contains("not a regular file")
        }
    }

    @Test func d3_aFailedWriteLeavesNoneOfItsFilesBehind() throws {
        let first = "/tmp/nook-png-\(getpid())-first.png"
        defer { unlink(first) }
        #expect(throws: RenderError.self) { try PNG.write(Frame(width: 4, height: 4), to: [first, "/tmp/nook-png-\(getpid())-no-such-directory/latest.png"]) }
        #expect(access(first, F_OK) != 0, "an empty frame file was left behind")
    }
}

extension PNGSeveralFilesTests {
    /// A FIFO where a frame file should be: waiting for a reader, or writing to one that never
    /// reads, would hold the writer and nookd's shutdown forever; a reader that left would end
    /// nookd with SIGPIPE.
    @Test(arguments: [false, true])
    func d3_aFIFOWhereAFrameFileShouldBeIsRefusedAtOnce(withReader: Bool) throws {
        let fifo = "/tmp/nook-png-\(getpid())-fifo-\(withReader).png"
        unlink(fifo)
        try #require(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let reader = withReader ? open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1
        defer { if reader >= 0 { close(reader) } }
        #expect {
            try PNG.write(PNGEncodingTests.patterned(width: 300, height: 300), to: [fifo])
        } throws: { error in
            "\(error)".contains(fifo) && "\(error)".contains("not a regular file")
        }
        #expect(access(fifo, F_OK) == 0, "the FIFO itself is not the writer's to remove")
    }
}
