#if canImport(Glibc)
import Glibc
#endif
import NookLogging
import NookActivities
@testable import NookDaemon
import NookDisplay
import NookRender
import NookTestSupport
import Testing

/// D3: the mock display's frame files, written on a thread of their own, each dated by the
/// moment its frame was presented (`ls --full-time` gives an animation's frame times; the
/// benchmark's `notify_to_first_frame_ms_p99` reads the first frame's).
@Suite("D3 mock frame files")
struct FrameWriterTests {
    static func modified(_ path: String) throws -> Double {
        var info = stat()
        try #require(stat(path, &info) == 0, "stat \(path): errno \(errno)")
        return Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    }

    static func wallNow() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    @Test func d3_aFrameFileIsDatedWhenItsFrameWasPresentedNotWhenItWasWritten() async throws {
        let scratch = Scratch()
        let directory = scratch.path + "/frames"
        let clock = ManualClock()
        clock.advance(by: .seconds(100))
        let writer = try FrameWriter(directory: directory, clock: clock, logger: Logger(label: "test"))
        // Presented a minute before the writer reads the clock.
        let frame = Frame(width: 8, height: 4, fill: 0xFF30_6090)
        let before = Self.wallNow()
        writer.offer(MockDisplay.RecordedFrame(index: 7, at: NookInstant(sinceOrigin: .seconds(40)), frame: frame))
        await writer.finish()
        // Dated between a minute before the offer and a minute before finish returned (on a
        // busy pool, that can be seconds after the files were written).
        let after = Self.wallNow()
        for file in ["frame-000007.png", "latest.png"] {
            let dated = try Self.modified(directory + "/" + file)
            #expect(dated >= before - 60 - 0.01 && dated <= after - 60 + 0.01, "\(file) is dated \(dated - before) s from the offer, \(dated - after) s from the end")
            #expect(try PNG.read(from: directory + "/" + file) == frame, "\(file)")
        }
    }

    @Test func d3_finishingWritesTheFrameStillWaitingAndThenOffersAreIgnored() async throws {
        let scratch = Scratch()
        let directory = scratch.path + "/frames"
        let clock = ManualClock()
        let writer = try FrameWriter(directory: directory, clock: clock, logger: Logger(label: "test"))
        for index in 0..<50 {
            writer.offer(MockDisplay.RecordedFrame(index: index, at: clock.now, frame: Frame(width: 64, height: 64, fill: 0xFF00_0000 | UInt32(index))))
        }
        await writer.finish()
        // The newest is always written, whatever was skipped on the way.
        #expect(try PNG.read(from: directory + "/frame-000049.png") == Frame(width: 64, height: 64, fill: 0xFF00_0031))
        #expect(try PNG.read(from: directory + "/latest.png") == Frame(width: 64, height: 64, fill: 0xFF00_0031))
        writer.offer(MockDisplay.RecordedFrame(index: 50, at: clock.now, frame: Frame(width: 64, height: 64)))
        #expect(access(directory + "/frame-000050.png", F_OK) != 0)
        await writer.finish()
    }
}

extension FrameWriterTests {
    @Test(.timeLimit(.minutes(1))) func d3_everyCallerOfFinishReturns() async throws {
        let scratch = Scratch()
        let writer = try FrameWriter(directory: scratch.path + "/frames", clock: ManualClock(), logger: Logger(label: "test"))
        writer.offer(MockDisplay.RecordedFrame(index: 0, at: .origin, frame: Frame(width: 640, height: 480)))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<3 { group.addTask { await writer.finish() } }
        }
    }
}

extension FrameWriterTests {
    @Test(arguments: ["/dev/null", "regular file"])
    func d3_framesThatAreNotADirectoryAreRefusedAtStart(path: String) throws {
        let scratch = Scratch()
        let target = path == "/dev/null" ? path : scratch.file("frames.png", "not a directory")
        #expect {
            _ = try FrameWriter(directory: target, clock: ManualClock(), logger: Logger(label: "test"))
        } throws: { error in
            "\(error)".contains(target) && "\(error)".contains("not a directory")
        }
    }
}
