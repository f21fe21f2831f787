import Foundation
import NookLCDproc
import NookTestSupport
import NookTestTraits
import Testing

/// E8 robustness: loopback only unless asked, over-long lines, a client that floods without
/// reading its answers is dropped and the others keep being served.
@Suite("E8 nook-lcdproc under bad input and floods", .serialized, .ownThreads)
struct RobustnessTests {
    /// Found by fuzzing (`Tests/Fuzz/lcdproc/regression-index-out-of-range.txt`): a `-name`
    /// as the last word read past the end of the line and stopped nook-lcdproc. LCDd answers
    /// which parameter it missed and carries on.
    @Test func e8_clientSetWithANameMissingIsAnErrorNotACrash() {
        let model = LCDServerModel(grid: LCDGrid(width: 20, height: 2))
        let id = model.connect()
        for line in ["hello", "client_set other -name", "client_set -name kept"] { model.receive(Array(line.utf8), from: id) }
        let lines = model.takeOutput().map(\.line)
        #expect(Array(lines.dropFirst()) == ["huh? invalid parameter (other)", "huh? internal error: no parameter #3", "success"], "\(lines)")
    }

    @Test func e8_aNonLoopbackBindNeedsAnExplicitFlagAndIsLogged() throws {
        let refused = Process()
        refused.executableURL = URL(fileURLWithPath: Built.directory + "/nook-lcdproc")
        refused.arguments = ["--bind", "0.0.0.0", "--port", "0", "--socket", "/nonexistent/nookd.sock"]
        let errors = Pipe.closedOnExec()
        refused.standardError = errors
        refused.standardOutput = FileHandle.nullDevice
        try refused.runAlone()
        refused.waitForExit()
        let message = String(decoding: errors.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
        #expect(refused.terminationStatus == 64)
        #expect(message.contains("--allow-network"), "\(message)")

        let bridge = try Bridge(bridgeArguments: ["--bind", "0.0.0.0", "--allow-network"], withNookd: false)
        #expect(bridge.waitForLog("not loopback"), "\(bridge.log)")
    }

    @Test func e8_overLongLinesAndGarbageGetAnswersAndTheConnectionKeepsWorking() throws {
        let bridge = try Bridge(withNookd: false)
        let client = try TCPConnection(port: bridge.port)
        try client.send("hello\n" + String(repeating: "x", count: 9000) + "\n\u{01}\u{02}\u{7F}\n\"unterminated\nnoop\n")
        let lines = client.readLines(5)
        #expect(lines.count == 5)
        #expect(lines.dropFirst().elementsEqual(["huh? Line too long (more than 8191 bytes)", "huh? Invalid command \"\u{01}\u{02}\u{7F}\"",
                                                 "huh? Could not parse command", "noop complete"]), "\(lines)")
    }

    @Test func e8_aClientThatFloodsWithoutReadingIsDroppedAndOthersAreServed() throws {
        let bridge = try Bridge(bridgeArguments: ["--max-backlog", "65536"], withNookd: false)
        let steady = try TCPConnection(port: bridge.port)
        try steady.send("hello\n")
        #expect(steady.readLines(1).first?.hasPrefix("connect LCDproc") == true)

        // The flooder never reads: its answers pile up in nook-lcdproc until it is dropped.
        let flooder = try TCPConnection(port: bridge.port)
        var size: Int32 = 4096
        setsockopt(flooder.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        let burst = Array(String(repeating: "noop\n", count: 20_000).utf8)
        let flood = Thread {
            for _ in 0..<100 {
                guard (try? flooder.send(burst)) != nil else { return }
            }
        }
        flood.start()
        #expect(bridge.waitForLog("does not read its answers", timeout: 90), "\(bridge.log)")
        // The steady client was answered all along and still is.
        try steady.send("noop\n")
        #expect(steady.readLines(1) == ["noop complete"])
    }

    /// Out of descriptors (RLIMIT_NOFILE), a connection that waits is closed at once, so its
    /// client sees the end rather than hanging, and the server does not spin on a listener it
    /// cannot empty (the warning is said once, not on every turn of its loop); once descriptors
    /// are free again a new client is served.
    @Test func e8_outOfDescriptorsAWaitingConnectionIsClosedAndNotSpunOn() throws {
        let bridge = try Bridge(bridgeArguments: ["--max-clients", "64"], withNookd: false, descriptorLimit: 32)
        var clients: [TCPConnection] = []
        for _ in 0..<40 { clients.append(try TCPConnection(port: bridge.port)) }
        // Accepted in order: the last one found no descriptor, and its connection ends.
        #expect(ended(clients[39]), "\(bridge.log.suffix(2000))")
        #expect(bridge.waitForLog("the connection waiting was closed"), "\(bridge.log.suffix(2000))")
        #expect(bridge.log.components(separatedBy: "'accept' failed").count - 1 == 1, "\(bridge.log.suffix(2000))")
        let first = clients[0]
        try first.send("hello\n")
        #expect(first.readLines(1).first?.hasPrefix("connect LCDproc") == true, "\(bridge.log.suffix(2000))")
        // Once the others hang up (and the server has seen them go), a newcomer is served.
        clients.removeAll()
        let deadline = Date().addingTimeInterval(TestBounds.seconds(20))
        var served = false
        while !served, Date() < deadline {
            let later = try TCPConnection(port: bridge.port)
            try later.send("hello\n")
            served = later.readLines(1, timeout: 2).first?.hasPrefix("connect LCDproc") == true
        }
        #expect(served, "\(bridge.log.suffix(2000))")
    }

    /// Whether the server ended `connection` (end of file or a reset) before the bound.
    func ended(_ connection: TCPConnection) -> Bool {
        let deadline = Date().addingTimeInterval(TestBounds.seconds(20))
        var byte: UInt8 = 0
        while Date() < deadline {
            var entry = pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 200) > 0 else { continue }
            return recv(connection.fd, &byte, 1, Int32(MSG_DONTWAIT)) <= 0
        }
        return false
    }

    @Test func e8_aClientThatHangsUpMidLineIsForgotten() throws {
        let bridge = try Bridge(withNookd: false)
        do {
            let leaving = try TCPConnection(port: bridge.port)
            try leaving.send("hello\nscreen_add a\nwidget_add a s string\nwidget_set a s 1 1 {half")
            _ = leaving.readLines(3)
        }
        #expect(bridge.waitForLog("LCDproc client 1 (127.0.0.1"), "\(bridge.log)")
        let next = try TCPConnection(port: bridge.port)
        try next.send("hello\nscreen_add a\n")
        #expect(next.readLines(2).last == "success")
    }
}
