import Foundation
import Logging
import NookActivities
@testable import NookHTTP
import NookProtocol
import Testing

/// H4: nook-http's link to a nookd that takes connections and never answers (stopped with
/// SIGSTOP: the kernel still queues connections on its socket), on a clock the test moves.
@Suite("H4 nook-http's link to a stuck nookd")
struct NookdLinkTests {
    /// A listening socket nobody accepts on; closed and removed when released.
    final class StuckSocket {
        let path = NSTemporaryDirectory() + "nook-stuck-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)

        init() throws {
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { bytes in
                for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard fd >= 0, bound == 0, listen(fd, 64) == 0 else { throw CocoaError(.fileWriteUnknown) }
        }

        deinit {
            close(fd)
            unlink(path)
        }
    }

    @Test func h4_callsToAStuckNookdBackOffUntilItAnswersRatherThanEachWaitingTheWholeTimeout() throws {
        let stuck = try StuckSocket()
        let now = Locked<Duration>(.seconds(1000))
        var options = NookdLink.Options(socketPath: stuck.path)
        options.callTimeout = .seconds(2)
        options.waitingCallTimeout = nil
        let link = NookdLink(options: options, logger: Logger(label: "test"), clock: { now.withLock { $0 } })
        func advance(_ by: Duration) { now.withLock { $0 += by } }
        /// A status call: its failure if it failed at once, nil while it waits for nookd.
        func call() -> NookdCallError? {
            var failure: NookdCallError?
            link.call(Request(id: nil, operation: .status)) { result in
                if case .failure(let error) = result { failure = error }
            }
            link.sendQueued()
            return failure
        }
        /// Moves past the call timeout and runs the link's timer: whether the link let go.
        func timeOut() -> Bool {
            advance(.seconds(2))
            _ = link.tick(now: now.withLock { $0 })
            return !link.isConnected
        }

        // The first call connects (the kernel takes the connection) and waits.
        #expect(call() == nil && link.isConnected)
        #expect(timeOut(), "the unanswered call did not time out")
        // At once, while the link waits its first interval (a quarter second).
        #expect(call() != nil, "a call during the backoff waited for nookd")
        advance(.milliseconds(300))
        #expect(call() == nil && link.isConnected, "after the interval the link did not try again")
        #expect(timeOut())
        // nookd took the connection but never answered: the interval has doubled, so 0.3 s
        // later the link still answers at once instead of waiting another whole timeout.
        advance(.milliseconds(300))
        #expect(call() != nil && !link.isConnected, "a connection nookd never answered on reset the backoff")
        advance(.milliseconds(300))
        #expect(call() == nil && link.isConnected, "after the doubled interval the link did not try again")
    }
}
