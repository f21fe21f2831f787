#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookActivities
import NookProtocol

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
        defer { close(reader) }
        try Self.send(reader, "GET /api/v1/screen.png HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        var buffer = [UInt8](repeating: 0, count: 65536)
        while buffer.withUnsafeMutableBytes({ recv(reader, $0.baseAddress, $0.count, 0) }) > 0 {}
        usleep(300_000)
        let before = figures.daemon.rssMiB(pid: pair.server)
        var stalled: [Int32] = []
        defer { for fd in stalled { close(fd) } }
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
        return (after - before) * 1024 / Double(Self.viewers)
    }

    static func connect(port: Int, from source: String, receiveBuffer: Int32?) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: \(errno)") }
        if var size = receiveBuffer { _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = UInt16(port).bigEndian
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, connected == 0 else {
            close(fd)
            throw BenchError("connect from \(source): \(errno)")
        }
        return fd
    }

    static func send(_ fd: Int32, _ text: String) throws {
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            throw BenchError("send: \(errno)")
        }
    }
}

func reportStalledViewerFigure(_ daemon: DaemonFigures) {
    do {
        try daemon.prepare()
        let figures = HTTPFigures(daemon: daemon)
        if getenv("NOOK_BENCH_NO_BUILD") == nil {
            let status = spawnAndWait("/usr/bin/env", ["swift", "build", "-c", "release", "--static-swift-stdlib",
                                                       "--package-path", daemon.packageRoot, "--product", "nook-http"], quiet: true)
            guard status == 0 else { throw BenchError("could not build nook-http (swift build exited \(status))") }
        }
        try FileManager.default.createDirectory(atPath: figures.scratch, withIntermediateDirectories: true)
        let perViewer = try figures.rounds(3) { try StalledViewerFigure(figures: figures).round() }
        report("http_stalled_viewer_kib", perViewer)
        if perViewer.median > 128 { print("  goal not met: http_stalled_viewer_kib <= 128") }
    } catch {
        print("stalled viewer figure skipped: \(error)")
    }
}
