import Glibc
import NookSystem
import Testing

/// The plain threads that replace nookd's Dispatch queues (libdispatch's threads wake
/// an idle nookd once a second).
@Suite("Threads: named threads and serial workers")
struct ThreadsTests {
    /// What `/proc/thread-self/comm` says on the calling thread.
    static func currentThreadName() -> String {
        let fd = open("/proc/thread-self/comm", O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = read(fd, &bytes, bytes.count)
        return String(decoding: bytes.prefix(max(0, count)), as: UTF8.self).trimmingSuffix("\n")
    }

    /// Closures given with `async` run one after another in order, and a `sync` after them
    /// sees all of them, on the worker's own thread with its name.
    @Test func serialWorkerRunsInOrderOnItsNamedThread() {
        /// Touched on the worker's thread only: no lock (TSan checks that the hand-offs order it).
        final class Seen: @unchecked Sendable { var numbers: [Int] = [] }
        let worker = SerialWorker(name: "nook.test.queue")
        let seen = Seen()
        for number in 0..<200 {
            worker.async { seen.numbers.append(number) }
        }
        let (numbers, name) = worker.sync { (seen.numbers, Self.currentThreadName()) }
        #expect(numbers == Array(0..<200))
        #expect(name == "nook.test.queue")
    }

    /// A sync answer can be nil (an optional result is not mistaken for "not done yet").
    @Test func serialWorkerSyncReturnsOptionalResults() {
        let worker = SerialWorker(name: "nook.test.nil")
        let answer: Int? = worker.sync { nil }
        #expect(answer == nil)
        #expect(worker.sync { 42 } == 42)
    }

    /// A started thread carries its name (the first 15 bytes: the kernel's limit).
    @Test func startedThreadsAreNamed() async {
        let name = await withCheckedContinuation { (done: CheckedContinuation<String, Never>) in
            startThread(named: "nook.test.a-long-thread-name") { done.resume(returning: Self.currentThreadName()) }
        }
        #expect(name == "nook.test.a-lon")
    }
}

private extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
