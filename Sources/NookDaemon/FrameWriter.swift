#if canImport(Glibc)
import Glibc
#endif
import Logging
import NookDisplay
import NookRender

/// Writes the mock display's frames as PNG files (`frame-000042.png`, and `latest.png` for the
/// frame on the glass). Encoding runs off the present path; when it falls behind, intermediate
/// animation frames are skipped and the newest is always written, so memory stays bounded.
final class FrameWriter: Sendable {
    private let continuation: AsyncStream<MockDisplay.RecordedFrame>.Continuation
    private let task: Task<Void, Never>

    /// - Parameter picture: what is written for a frame (the LED mock draws its LEDs round).
    init(directory: String, logger: Logger, picture: @escaping @Sendable (Frame) -> Frame = { $0 }) throws(SocketError) {
        var info = stat()
        if stat(directory, &info) != 0 {
            guard mkdir(directory, 0o755) == 0 else { throw SocketError.call("mkdir", directory) }
        }
        let (stream, continuation) = AsyncStream<MockDisplay.RecordedFrame>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.continuation = continuation
        task = Task.detached(priority: .utility) {
            var failed = false
            for await record in stream {
                let number = String(record.index)
                let path = directory + "/frame-" + String(repeating: "0", count: max(0, 6 - number.count)) + number + ".png"
                do {
                    let image = picture(record.frame)
                    try PNG.write(image, to: path)
                    try PNG.write(image, to: directory + "/.latest.png")
                    rename(directory + "/.latest.png", directory + "/latest.png")
                    failed = false
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
