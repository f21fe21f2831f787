import Foundation
import NookProtocol
import Testing

/// How `NookClient` cuts what nookd writes into lines: a line arrives in as many reads as the
/// socket likes, several lines in one, and a `history` answer can be megabytes long.
@Suite("C1 the client reads nookd's lines however the socket cuts them")
struct ClientLineReadingTests {
    /// A listening socket in a fresh directory; `serve` gets the accepted connection.
    private func withServer(_ serve: @escaping @Sendable (Int32) -> Void, _ client: (NookClient) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nook-lines-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/s"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(listener >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0 && listen(listener, 1) == 0)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let connection = accept(listener, nil, nil)
            serve(connection)
            close(connection)
            close(listener)
            done.signal()
        }.start()
        let nook = try NookClient(path: path)
        try client(nook)
        done.wait()
    }

    private static func write(_ fd: Int32, _ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }

    @Test func c1_n2_aRequestNookdBeganAndStoppedUnderIsALostConnectionAndOneItNeverBeganIsItsRefusal() throws {
        // nookd stops: its last line names the last request it began (started_through).
        for (began, lost) in [("7", true), ("6", false)] {
            try withServer({ fd in
                var byte: UInt8 = 0
                while recv(fd, &byte, 1, 0) == 1, byte != 0x0A {}
                Self.write(fd, Array((StoppingLine.encoded(ProtocolError(.unavailable, "nookd is stopping"), startedThrough: .number(Double(began)!)) + "\n").utf8))
            }) { client in
                do {
                    _ = try client.request(Request(id: .number(7), operation: .status))
                    Issue.record("started_through \(began): answered")
                } catch let error as ClientError {
                    switch error {
                    case .connectionLost(let reason):
                        #expect(lost, "started_through \(began): \(reason)")
                        #expect(reason.contains("may or may not"), "\(reason)")
                    case .daemon(let refusal):
                        #expect(!lost && refusal.code == .unavailable, "started_through \(began): \(refusal)")
                    case .unreachable(let reason):
                        Issue.record("started_through \(began): \(reason)")
                    }
                }
            }
        }
    }

    @Test func c1_aLongLineInManySmallWritesThenSeveralLinesInOneWrite() throws {
        // 600 KB: what `history` answers for some 1,500 entries.
        let long = (0..<60_000).map { UInt8(ascii: "a") + UInt8($0 % 26) } + Array(repeating: UInt8(ascii: "z"), count: 540_000)
        // The rest of "fourth" is written only once the client has taken "third": it must then
        // wait for more with part of a line in its buffer.
        let tookThird = DispatchSemaphore(value: 0)
        try withServer({ fd in
            var offset = 0
            while offset < long.count {
                let end = min(offset + 7_001, long.count)
                Self.write(fd, Array(long[offset..<end]))
                offset = end
                if offset % 70_010 == 0 { usleep(1_000) }
            }
            Self.write(fd, Array("\nsecond\nthird\nfou".utf8))
            tookThird.wait()
            usleep(20_000)
            Self.write(fd, Array("rth\n\n".utf8))
        }) { (client: NookClient) throws(any Error) in
            #expect(try client.readLine() == long)
            #expect(try client.readLine() == Array("second".utf8))
            #expect(try client.readLine() == Array("third".utf8))
            tookThird.signal()
            #expect(try client.readLine() == Array("fourth".utf8))
            #expect(try client.readLine() == [])
            #expect(try client.readLine() == nil)
        }
    }

    @Test func c1_theWarningMemberIsFoundOnlyWhereItIs() {
        #expect(NookClient.warning(in: Array(#"{"v":1,"id":1,"ok":true,"result":{},"warning":"not saved"}"#.utf8)) == "not saved")
        #expect(NookClient.warning(in: Array(#"{"v":1,"id":1,"ok":true,"result":{"title":"warning"}}"#.utf8)) == nil)
        #expect(NookClient.warning(in: Array(#"{"v":1,"id":1,"ok":true,"result":{}}"#.utf8)) == nil)
    }
}
