#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookActivities
import NookProtocol
import NookSystem

/// `http_stalled_viewer_kib`: what one live-view viewer that never reads costs nook-http. 200
/// streams (50 from each of four loopback addresses, inside one address's share) each send
/// their request and read nothing, with a kernel receive buffer of 4 KiB, while the card on the
/// glass changes 60 times; nook-http's resident memory after, less before, per viewer. A fresh
/// nook-http and nookd each round (freed memory is not given back, so a second round in the
/// same process would measure less).
struct StalledViewerFigure {
    let figures: HTTPFigures
    static let viewers = 200

    func round() throws -> Double {
        let pair = try figures.start("viewers-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let client = try NookClient(path: pair.socket)
        _ = try client.request(Request(id: .number(1), operation: .home(.blank)))
        let card = NookActivity(coalescingKey: "viewers", title: "Change 0", subtitle: "viewers that never read", systemImage: "bell",
                                presentation: .blocker(timeout: nil))
        _ = try client.request(Request(id: .number(1), operation: .enqueue(card, module: nil, wait: false)))
        // One viewer that reads, first: the live view's own buffers are in the baseline.
        let reader = try Self.connect(port: pair.port, from: "127.0.0.1", receiveBuffer: nil)
        try Self.send(reader, "GET /api/v1/screen.png HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        var buffer = [UInt8](repeating: 0, count: 65536)
        while try buffer.withUnsafeMutableBytes({ bytes in try System.receive(reader.rawValue, bytes.baseAddress, bytes.count) }) > 0 {}
        usleep(300_000)
        let before = figures.daemon.rssMiB(pid: pair.server)
        // Each socket closes when its FileDescriptor goes, after the measurement.
        var stalled: [FileDescriptor] = []
        for index in 0..<Self.viewers {
            let fd = try Self.connect(port: pair.port, from: "127.0.0.\(1 + index % 4)", receiveBuffer: 4096)
            stalled.append(fd)
            try Self.send(fd, "GET /api/v1/screen/stream HTTP/1.1\r\nHost: localhost\r\n\r\n")
        }
        for change in 1...60 {
            _ = try client.request(Request(id: .number(2), operation: .update(
                .key("viewers", module: nil), changes: ActivityChanges(members: [("title", .string("Change \(change) of the card"))]),
                restartDwell: false)))
            usleep(20_000)
        }
        sleep(1)
        let after = figures.daemon.rssMiB(pid: pair.server)
        withExtendedLifetime(stalled) {}
        return (after - before) * 1024 / Double(Self.viewers)
    }

    static func connect(port: Int, from source: String, receiveBuffer: Int32?) throws -> FileDescriptor {
        let socket = FileDescriptor(owning: try System.socket(AF_INET, SOCK_STREAM, flags: SOCK_CLOEXEC.rawValue),
                                    name: "viewer from \(source)")
        let fd = socket.rawValue
        if let size = receiveBuffer {
            try System.setSocketOption(fd, SOL_SOCKET, SO_RCVBUF, size, name: "SO_RCVBUF")
        }
        _ = try withIPv4Address(source) { address, length in try System.bind(fd, address, length, subject: source) }
        _ = try withIPv4Address("127.0.0.1", port: port) { address, length in
            try System.connect(fd, address, length, subject: source)
        }
        return socket
    }

    static func send(_ socket: FileDescriptor, _ text: String) throws {
        let bytes = Array(text.utf8)
        let sent = try bytes.withUnsafeBytes { buffer in
            try System.send(socket.rawValue, buffer.baseAddress, buffer.count, flags: Int32(MSG_NOSIGNAL))
        }
        guard sent == bytes.count else { throw BenchError("send: \(sent) of \(bytes.count) bytes") }
    }
}

func reportStalledViewerFigure(_ daemon: DaemonFigures) {
    do {
        let figures = try HTTPFigures.prepared(daemon)
        let perViewer = try figures.rounds(3) { try StalledViewerFigure(figures: figures).round() }
        report("http_stalled_viewer_kib", perViewer)
        if perViewer.median > 128 { print("  goal not met: http_stalled_viewer_kib <= 128") }
    } catch {
        print("stalled viewer figure skipped: \(error)")
    }
}
