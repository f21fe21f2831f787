import Foundation

extension DispatchSemaphore {
    /// Waits for the semaphore on a thread of its own, never on one of the pool's threads.
    ///
    /// On Linux the Swift concurrency pool is libdispatch's global queue, as wide as the cores
    /// (two on CI): a wait parked there with `DispatchQueue.global().async` holds one of those two
    /// threads. When the work that signals the semaphore is itself a task, two such waits starve
    /// it, and every other test in the process, until their timeout. In a ThreadSanitizer pass,
    /// a journal test's wait for its held sync did that for 120 s.
    public func waitedOnAThread(seconds: Double) async -> DispatchTimeoutResult {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.wait(timeout: .now() + seconds)) }.start()
        }
    }
}
