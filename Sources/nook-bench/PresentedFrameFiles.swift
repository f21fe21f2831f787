#if canImport(Glibc)
import Glibc
#endif
import NookProtocol
import NookSystem

/// When a release nookd outside this process presented a frame: nookd started with `--frames
/// DIR` on the mock display writes each presented frame as a file dated with the moment it was
/// on the glass (`FrameWriter`), and this watches the directory (inotify IN_ATTRIB: the file is
/// dated once written) and reads that date. Timed by when this process saw the file instead, a
/// sample would also hold the frame writer's PNG encoding, 4 to 5 ms on a busy core.
/// The first-frame figures of the bridges and of nook-http share it.
struct PresentedFrameFiles {
    let directory: String
    private let watcher: FileDescriptor

    init(directory: String) throws {
        self.directory = directory
        watcher = FileDescriptor(owning: try System.inotifyInstance(flags: Int32(IN_CLOEXEC | IN_NONBLOCK)), name: "inotify")
        let watch = watcher.rawValue
        try System.inotifyWatch(watch, directory, mask: UInt32(IN_ATTRIB))
    }

    /// The name of the next `frame-*.png` file dated in the directory within the time, or nil.
    func next(withinMilliseconds timeout: Int32) -> String? {
        let watch = watcher.rawValue
        let deadline = ContinuousClock.now + .milliseconds(timeout)
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let left = Int32(max(0, ((deadline - .now) / .milliseconds(1)).rounded(.up)))
            var entry = pollfd(fd: watch, events: Int16(POLLIN), revents: 0)
            guard (try? System.poll(&entry, timeoutMilliseconds: left)) ?? 0 > 0 else { return nil }
            let count = (try? System.readIfReady(watch, &buffer, buffer.count, subject: "inotify")) ?? -1
            var offset = 0
            // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of name
            // (NUL-padded).
            while count > 0, offset + 16 <= count {
                let length = Int(buffer[offset + 12]) | Int(buffer[offset + 13]) << 8 | Int(buffer[offset + 14]) << 16 | Int(buffer[offset + 15]) << 24
                let name = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                if name.starts(with: Array("frame-".utf8)) { return String(decoding: name, as: UTF8.self) }
                offset += 16 + length
            }
        }
    }

    /// Returns once no frame file has been dated for `milliseconds` (a slide-out's frames written).
    func waitForQuiet(milliseconds: Int32 = 150) {
        while next(withinMilliseconds: milliseconds) != nil {}
    }

    /// When the frame in `file` was presented, in CLOCK_REALTIME nanoseconds (its modification time).
    func presented(_ file: String) throws -> Int64 {
        guard let info = try fileStatus(directory + "/" + file) else { throw BenchError("stat \(file): no such file") }
        return Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }

    /// The presentation time of the first frame presented at or after `start` (wall clock,
    /// nanoseconds): a frame of before it (the writer behind on a busy machine) is not the one
    /// waited for. `what` names it in the error when none comes within 10 s.
    func firstPresented(since start: Int64, what: String) throws -> Int64 {
        var presented: Int64 = 0
        repeat {
            guard let file = next(withinMilliseconds: 10_000) else { throw BenchError("no frame of \(what) within 10 s") }
            presented = try self.presented(file)
        } while presented < start
        return presented
    }

    /// CLOCK_REALTIME now, in nanoseconds: the clock of file times.
    static func wallClockNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// Until nookd holds no activity in any module (nothing on the glass, nothing pending).
    static func waitForIdleGlass(_ nookd: NookClient, seconds: Double = 20) throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if let answer = try? nookd.request(Request(id: .number(1), operation: .list(module: nil)), as: ListAnswer.self),
               answer.0.modules.allSatisfy({ $0.current == nil && $0.pending.isEmpty }) { return }
            usleep(10_000)
        }
        throw BenchError("timed out waiting for an idle glass")
    }
}
