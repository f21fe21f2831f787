import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// A datagram socket standing in for systemd's NOTIFY_SOCKET: the test reads what nookd sends.
final class FakeNotifySocket {
    let path: String
    private let fd: Int32

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw DaemonFailure("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw DaemonFailure("bind \(path): errno \(errno)") }
    }

    /// The next message, or nil if none arrives within `timeout` seconds.
    func receive(timeout: Double) -> String? {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, Int32(timeout * 1000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// Messages until `condition` holds for one, or `timeout` passes; true if it held.
    func wait(timeout: Double, for condition: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let message = receive(timeout: deadline.timeIntervalSinceNow), condition(message) { return true }
        }
        return false
    }

    deinit {
        close(fd)
        unlink(path)
    }
}

@Suite("W1 systemd watchdog", .serialized, .ownThreads)
struct WatchdogEndToEndTests {
    /// nookd pings while its display loop goes round, idle or drawing, and the pings stop
    /// when the loop hangs in a present (the fault injected by debug.hang_display_file).
    @Test func w1_pingsComeFromTheDisplayLoopAndStopWhenItHangs() throws {
        let scratch = Scratch()
        let notify = try FakeNotifySocket(path: scratch.path + "/notify")
        let trigger = scratch.path + "/hang"
        let config = scratch.file("nook.toml", "[debug]\nhang_display_file = \"\(trigger)\"\n")
        // 400 ms: a ping every 200 ms.
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config],
                                       environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "400000"])
        #expect(notify.wait(timeout: 30) { $0.contains("READY=1") })
        // Idle (home content, no card), the loop still beats.
        for _ in 0..<3 {
            #expect(notify.wait(timeout: 30) { $0 == "WATCHDOG=1" }, "idle pings")
        }
        try daemon.request(.enqueue(NookActivity(title: "Shown", dwell: .seconds(1)), module: nil, wait: false))
        #expect(notify.wait(timeout: 30) { $0 == "WATCHDOG=1" }, "pings while a card is drawn")

        _ = FileManager.default.createFile(atPath: trigger, contents: nil)
        try daemon.request(.enqueue(NookActivity(title: "Hangs the display"), module: nil, wait: false))
        // nookd says so once the loop is in the present that never returns: every ping it sent
        // before is already in the socket, to be drained; after that, silence.
        try eventually("the display loop to hang", timeout: 30) { daemon.log.contains("display loop now hangs") }
        while notify.receive(timeout: 0) != nil {}
        // At most two pings can still come, both decided before the hang: one sent after the
        // drain (the send is outside the heartbeat's lock, and a loaded machine may hold the
        // sender between), and one that another loop's beat completes with the hung loop's last
        // beat. Then silence: 15 intervals with no ping.
        var late = 0
        while late <= 2, notify.wait(timeout: TestBounds.seconds(3), for: { $0 == "WATCHDOG=1" }) { late += 1 }
        #expect(late <= 2, "pings went on after the loop hung")
        // The socket still answers: only a watchdog would notice that the glass is stuck.
        #expect((try daemon.request(.status))["modules"] != nil)
    }

    /// Without WATCHDOG_USEC nothing is pinged; one meant for another process is ignored.
    @Test func w1_noWatchdogAskedForNoPings() throws {
        let scratch = Scratch()
        let notify = try FakeNotifySocket(path: scratch.path + "/notify")
        let daemon = try DaemonProcess(scratch: scratch, environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "400000", "WATCHDOG_PID": "1"])
        #expect(notify.wait(timeout: 30) { $0.contains("READY=1") })
        // The display loop goes round for a whole card, slide in, dwell and slide out...
        let waiter = try daemon.client()
        _ = try waiter.request(Request(id: .number(1), operation: .enqueue(NookActivity(title: "Drawn", dwell: .seconds(1)), module: nil, wait: true)))
        _ = try readEvents(waiter) { $0["event"] == .string("hidden") }
        // ...then nookd stops: every message it sent before STOPPING=1 is read, and none pinged.
        #expect(daemon.stop().status == 0)
        var before: [String] = [], stopped = false
        while !stopped, let message = notify.receive(timeout: TestBounds.seconds(10)) {
            if message.contains("STOPPING=1") { stopped = true } else { before.append(message) }
        }
        #expect(stopped, "STOPPING=1 sent: \(before)")
        #expect(!before.contains("WATCHDOG=1"), "pinged for another process's watchdog: \(before)")
    }
}
