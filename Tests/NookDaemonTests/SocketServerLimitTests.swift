import Foundation
import NookLogging
import NookProtocol
import NookTestTraits
import NookTestSupport
import Testing
@testable import NookDaemon

/// C1: `daemon.max_connections` counts sockets nookd still holds, not only connections it still
/// serves: a client that hangs up while its answer waits for a stalled disk keeps its socket
/// open until the journal settles, and a crowd of such clients must be refused with a reason
/// rather than run nookd out of descriptors.
@Suite("C1 connection limit under a stalled journal", .serialized, .ownThreads)
struct SocketServerLimitTests {
    @Test func c1_socketsWaitingForAStalledJournalCountAgainstTheLimit() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nook-limit-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/s"
        let disk = Latch()
        let server = try SocketServer(
            path: path, mode: 0o600, group: nil, policy: try AccessPolicy(), maximumLine: 4096,
            logger: Logger(label: "test"), maximumConnections: 4,
            handler: { connection, _ in
                connection.send("{\"v\":1,\"id\":1,\"ok\":true,\"result\":{}}")
                connection.dependOn(1)
            },
            refusal: { _, _ in },
            settle: { _, done in Task { await disk.wait(); done(nil) } })
        try server.start()
        defer { disk.open(); server.stop() }

        for _ in 0..<4 {
            let client = try NookClient(path: path)
            try client.send("{\"v\":1,\"id\":1,\"op\":\"status\"}")
            // Hangs up before its answer, which waits for the disk.
        }
        // The bounds only end a hang: the settles run on the cooperative pool, where they wait
        // behind every job queued before them, early in a whole run every other test's first.
        try eventually("the four served connections let go", timeout: 180) { server.openConnections == 0 }
        let fifth = try NookClient(path: path)
        fifth.readTimeout = TestBounds.duration(.seconds(10))
        let answer = try #require(try fifth.readLine())
        guard case .failure(_, let error) = try ResponseLine.decode(answer) else { Issue.record("not refused: \(answer)"); return }
        #expect(error.code == .unavailable && error.message.contains("daemon.max_connections"), "\(error)")

        disk.open()
        try eventually("room again once the disk answers", timeout: 180) {
            // Refused (and closed) while the released sockets are still on their way out.
            guard let client = try? NookClient(path: path) else { return false }
            client.readTimeout = TestBounds.duration(.seconds(10))
            guard (try? client.send("{\"v\":1,\"id\":1,\"op\":\"status\"}")) != nil,
                  let line = try? client.readLine(), case .success? = try? ResponseLine.decode(line) else { return false }
            return true
        }
    }
}
