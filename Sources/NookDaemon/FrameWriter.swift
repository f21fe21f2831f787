#if canImport(Glibc)
import Glibc
#endif
import NookLogging
import NookActivities
import NookDisplay
import NookRender
import NookSystem

/// Writes the mock display's frames as PNG files (`frame-000042.png`, and `latest.png` for the
/// frame on the glass), each file's modification time set to the moment its frame was
/// presented. Encoding (zlib, a few milliseconds a frame) runs on a thread of its own, not
/// nookd's task pool, where it held one of the two threads nookd draws with; when it falls
/// behind, intermediate animation frames are skipped and the newest is always written, so
/// memory stays bounded. Only the newest `limit` frame files are kept (`display.frames_limit`):
/// a daemon left running with `--frames` once wrote until the disk was full.
public final class FrameWriter: Sendable {
    public static let defaultLimit = 1000

    private final class Mailbox: @unchecked Sendable {
        let condition = ThreadCondition()
        // Guarded by `condition`.
        var newest: MockDisplay.RecordedFrame?
        var finishing = false
        /// Callers of `finish()` waiting for the thread to end.
        var waiting: [CheckedContinuation<Void, Never>] = []
        var drained = false

        /// The next frame to write, or nil once finishing and nothing is left.
        func take() -> MockDisplay.RecordedFrame? {
            condition.withLock {
                while newest == nil && !finishing { condition.wait() }
                defer { newest = nil }
                return newest
            }
        }

        func drainedNow() {
            let waiters = condition.withLock {
                drained = true
                defer { waiting = [] }
                return waiting
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    private let mailbox = Mailbox()

    /// - Parameters:
    ///   - limit: how many frame files stay on disk; older ones are removed (display.frames_limit).
    ///   - picture: what is written for a frame (the LED mock draws its LEDs round).
    ///   - clock: the display's clock, which stamped each frame's presentation.
    init(directory: String, limit: Int = FrameWriter.defaultLimit, clock: any NookClock, logger: Logger,
         picture: @escaping @Sendable (Frame) -> Frame = { $0 }) throws(SocketError) {
        if let info = try? fileStatus(directory) {
            // Said at start, not as a warning at the first frame.
            guard info.st_mode & S_IFMT == S_IFDIR else { throw SocketError("\(directory) is not a directory") }
        } else {
            do throws(SystemCallError) {
                try System.makeDirectory(directory, mode: 0o755)
            } catch {
                throw SocketError(error)
            }
        }
        startThread(named: "nookd.frames") { [mailbox] in
            var files = FrameFiles(directory: directory, limit: limit, logger: logger)
            while let record = mailbox.take() {
                files.write(picture(record.frame), index: record.index, shown: FrameFiles.wallClock(before: clock.now - record.at))
            }
            mailbox.drainedNow()
        }
    }

    /// Called by the mock display for every frame it presents; replaces a frame not yet taken.
    func offer(_ record: MockDisplay.RecordedFrame) {
        mailbox.condition.withLock {
            guard !mailbox.finishing else { return }
            mailbox.newest = record
            mailbox.condition.signal()
        }
    }

    /// Writes the frame still waiting, if any, and returns once the writer's thread has ended
    /// (to every caller, however many).
    func finish() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let alreadyDrained = mailbox.condition.withLock {
                mailbox.finishing = true
                mailbox.condition.signal()
                if !mailbox.drained { mailbox.waiting.append(done) }
                return mailbox.drained
            }
            if alreadyDrained { done.resume() }
        }
    }
}

/// The frame files on disk: numbered, `latest.png` replaced atomically, the oldest removed
/// past the limit, each dated by its frame's presentation.
private struct FrameFiles {
    let directory: String
    let limit: Int
    let logger: Logger
    private var written: [String] = []
    private var oldest = 0
    private var noted = false
    private var failed = false

    init(directory: String, limit: Int, logger: Logger) {
        (self.directory, self.limit, self.logger) = (directory, limit, logger)
    }

    /// - Parameter shown: when the frame was presented, in CLOCK_REALTIME nanoseconds.
    mutating func write(_ image: Frame, index: Int, shown: Int64) {
        let number = String(index)
        let path = directory + "/frame-" + String(repeating: "0", count: max(0, 6 - number.count)) + number + ".png"
        let latest = directory + "/.latest.png"
        do {
            // One encoding for both files, dated when the frame was on the glass, not when its
            // encoding ended (a few milliseconds, or far more behind a busy core): `ls
            // --full-time` gives an animation's frame times, and `notify_to_first_frame_ms_p99`
            // reads the first's.
            try PNG.write(image, to: [path, latest], modified: shown)
            _ = try? renameFile(latest, to: directory + "/latest.png")
            failed = false
            written.append(path)
            if written.count - oldest > limit { removeOldest() }
        } catch {
            if !failed { logger.warning("cannot write mock frames: \(error)") }
            failed = true
        }
    }

    /// CLOCK_REALTIME `ago` before now, in nanoseconds since the epoch.
    static func wallClock(before ago: Duration) -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec) - Int64(max(0, min(ago.nookSeconds, 1e9)) * 1e9)
    }

    private mutating func removeOldest() {
        if !noted {
            logger.notice("mock frames: keeping only the newest \(limit) frame files in \(directory) (display.frames_limit); removing older ones from now on")
            noted = true
        }
        _ = try? removeFile(written[oldest])
        oldest += 1
        if oldest > 4096 {
            written.removeFirst(oldest)
            oldest = 0
        }
    }
}
