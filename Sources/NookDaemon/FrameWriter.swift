#if canImport(Glibc)
import Glibc
#endif
import Logging
import NookDisplay
import NookRender

/// Writes the mock display's frames as PNG files (`frame-000042.png`, and `latest.png` for the
/// frame on the glass). Encoding runs off the present path; when it falls behind, intermediate
/// animation frames are skipped and the newest is always written, so memory stays bounded.
/// Only the newest `limit` frame files are kept (`display.frames_limit`): a daemon left running
/// with `--frames` once wrote until the disk was full.
public final class FrameWriter: Sendable {
    public static let defaultLimit = 1000
    private let continuation: AsyncStream<MockDisplay.RecordedFrame>.Continuation
    private let task: Task<Void, Never>

    /// - Parameters:
    ///   - limit: how many frame files stay on disk; older ones are removed (display.frames_limit).
    ///   - picture: what is written for a frame (the LED mock draws its LEDs round).
    init(directory: String, limit: Int = FrameWriter.defaultLimit, logger: Logger,
         picture: @escaping @Sendable (Frame) -> Frame = { $0 }) throws(SocketError) {
        var info = stat()
        if stat(directory, &info) != 0 {
            guard mkdir(directory, 0o755) == 0 else { throw SocketError.call("mkdir", directory) }
        }
        let (stream, continuation) = AsyncStream<MockDisplay.RecordedFrame>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.continuation = continuation
        task = Task.detached(priority: .utility) {
            var failed = false
            var written: [String] = []
            var oldest = 0
            var noted = false
            for await record in stream {
                let number = String(record.index)
                let path = directory + "/frame-" + String(repeating: "0", count: max(0, 6 - number.count)) + number + ".png"
                do {
                    let image = picture(record.frame)
                    try PNG.write(image, to: path)
                    try PNG.write(image, to: directory + "/.latest.png")
                    rename(directory + "/.latest.png", directory + "/latest.png")
                    failed = false
                    written.append(path)
                    if written.count - oldest > limit {
                        if !noted {
                            logger.notice("mock frames: keeping only the newest \(limit) frame files in \(directory) (display.frames_limit); removing older ones from now on")
                            noted = true
                        }
                        unlink(written[oldest])
                        oldest += 1
                        if oldest > 4096 {
                            written.removeFirst(oldest)
                            oldest = 0
                        }
                    }
                } catch {
                    if !failed { logger.warning("cannot write mock frames: \(error)") }
                    failed = true
                }
            }
        }
    }

    /// Called by the mock display for every frame it presents.
    func offer(_ record: MockDisplay.RecordedFrame) {
        continuation.yield(record)
    }

    func finish() async {
        continuation.finish()
        await task.value
    }
}
