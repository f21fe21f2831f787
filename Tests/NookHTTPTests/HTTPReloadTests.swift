import Foundation
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// N1 for nook-http: SIGHUP reads the token file again rather than ending the process. A good
/// file serves every new request; a bad one is logged naming what is wrong and the tokens
/// already read stay; a request under way is answered. The built nook-http and a real nookd.
@Suite("N1 nook-http reloads its token file on SIGHUP", .serialized, .ownThreads)
struct HTTPReloadTests {
    func status(_ token: String, _ service: HTTPService) throws -> Int {
        let result = try runProgram("/usr/bin/curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(token)", service.url + "/healthz"])
        return Int(result.output) ?? 0
    }

    /// Sends SIGHUP and waits for the log line that says how it went (the `count`th of them).
    func reload(_ service: HTTPService, count: Int) -> Bool {
        kill(service.server.processIdentifier, SIGHUP)
        var reloaded = false
        _ = Waiting.until(seconds: 30, every: .milliseconds(50)) {
            reloaded = service.logText.components(separatedBy: "SIGHUP: ").count - 1 >= count
            return reloaded || !service.server.isRunning
        }
        return reloaded
    }

    @Test func n1_sighupReadsTheTokenFileAgainAndKeepsTheOldTokensWhenTheNewFileIsBad() throws {
        let first = "nook_first-reload-token", second = "nook_second-reload-token"
        let tokens = NSTemporaryDirectory() + "nook-http-reload-tokens-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: tokens) }
        func write(_ text: String) throws {
            try text.write(toFile: tokens, atomically: true, encoding: .utf8)
            chmod(tokens, 0o600)
        }
        try write("first read sha256:\(sha256Hex(first))\n")
        let service = try HTTPService(config: "[http]\ntokens = \"\(tokens)\"\nrate_limit_per_s = 0\n")
        #expect(try status(first, service) == 200 && status(second, service) == 401)

        // A request whose head is half sent when the signal comes is answered once it is whole.
        let underWay = try RawConnection(port: service.port)
        try underWay.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        try write("second read sha256:\(sha256Hex(second))\n")
        #expect(reload(service, count: 1), "\(service.logText.suffix(2000))")
        #expect(service.server.isRunning, "SIGHUP ended nook-http")
        try underWay.send("Authorization: Bearer \(first)\r\n\r\n")
        let answer = underWay.read(until: { $0.contains("unauthorized") || $0.contains("reachable") }).text
        #expect(answer.statusCodes == [401], "the request is checked against the file read again: \(answer)")
        #expect(try status(second, service) == 200 && status(first, service) == 401, "\(service.logText.suffix(2000))")
        #expect(service.logText.contains("SIGHUP: 1 token(s) read again"))

        // A file with an error: refused, said, and the tokens read before stay.
        try write("second read sha256:\(sha256Hex(second))\nthird admin sha256:\(sha256Hex(second))\n")
        #expect(reload(service, count: 2), "\(service.logText.suffix(2000))")
        #expect(service.logText.contains("SIGHUP: keeping the 1 token(s) already read") && service.logText.contains("\(tokens) line 2"),
                "\(service.logText.suffix(2000))")
        try write("second read sha256:\(sha256Hex(second))\n")
        chmod(tokens, 0o622)
        #expect(reload(service, count: 3))
        #expect(service.logText.contains("mode 622, so its group and others can write it"), "\(service.logText.suffix(2000))")
        #expect(service.server.isRunning)
        #expect(try status(second, service) == 200 && status(first, service) == 401)
    }

    @Test func n1_sighupWithoutATokenFileKeepsServingAndSaysSo() throws {
        let service = try HTTPService()
        #expect(reload(service, count: 1), "\(service.logText.suffix(2000))")
        #expect(service.server.isRunning, "SIGHUP ended nook-http")
        #expect(service.logText.contains("no token file (http.tokens) to read again"))
        #expect(try curl([service.url + "/healthz"]).output.statusCodes == [200])
    }

    /// Whatever its descriptor limit, nook-http either refuses to start, naming the call that
    /// failed, or serves with its signals handled: never serving with SIGHUP ignored (a reload
    /// lost) and SIGTERM ending it with no stop. The limits swept cover the relay's pipe failing
    /// after the server's own descriptors were made (where that falls depends on the build).
    @Test func n1_n2_outOfDescriptorsNookHTTPRefusesToStartOrHandlesItsSignals() throws {
        for limit in 6...24 {
            let log = NSTemporaryDirectory() + "nook-http-nofile-\(getpid())-\(limit).log"
            let config = log + ".toml"
            defer { unlink(log); unlink(config) }
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            _ = FileManager.default.createFile(atPath: config, contents: nil)
            let server = Process()
            server.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
            server.arguments = ["--nofile=\(limit)", "--", Built.directory + "/nook-http", "--listen", "127.0.0.1:0",
                                "--socket", "/nonexistent/nookd.sock", "--config", config]
            server.standardOutput = FileHandle(forWritingAtPath: log)
            server.standardError = FileHandle(forWritingAtPath: log)
            try server.runAlone()
            func text() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
            try nativeAPIEventually("nook-http at \(limit) descriptors listening or gone") { !server.isRunning || text().contains("listening on") }
            guard server.isRunning else {
                #expect(server.terminationStatus != 0 && text().contains("failed"), "limit \(limit): \(text())")
                continue
            }
            kill(server.processIdentifier, SIGHUP)
            let reloaded = (try? nativeAPIEventually("SIGHUP handled", timeout: 10) { text().contains("SIGHUP: ") }) != nil
            #expect(reloaded, "limit \(limit): nook-http serves but did not handle SIGHUP: \(text())")
            kill(server.processIdentifier, SIGTERM)
            #expect(server.exited(within: TestBounds.seconds(10)), "limit \(limit): \(text())")
            #expect(server.terminationReason == .exit && server.terminationStatus == 0, "limit \(limit): SIGTERM did not stop it: \(text())")
        }
    }

    /// nook-http started with a token file, signalled as soon as it has read the file (it is
    /// in main, making its server, not yet serving): a SIGTERM then stops it as a running one
    /// stops (exit 0, not death by the signal), and a SIGHUP then is a reload once it serves.
    @Test(arguments: [SIGTERM, SIGHUP])
    func n1_n2_aSignalWhileNookHTTPStartsIsHandledOnceItServes(_ signal: Int32) throws {
        for round in 1...8 {
            let directory = NSTemporaryDirectory() + "nook-http-early-\(getpid())-\(signal)-\(round)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let tokens = directory + "/tokens", config = directory + "/http.toml", log = directory + "/log"
            try "early read sha256:\(sha256Hex("nook_early-signal-token"))\n".write(toFile: tokens, atomically: true, encoding: .utf8)
            chmod(tokens, 0o600)
            try "[http]\ntokens = \"\(tokens)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            let server = Process()
            server.executableURL = URL(fileURLWithPath: Built.directory + "/nook-http")
            server.arguments = ["--listen", "127.0.0.1:0", "--socket", directory + "/none.sock", "--config", config, "--log-level", "info"]
            server.standardOutput = FileHandle(forWritingAtPath: log)
            server.standardError = FileHandle(forWritingAtPath: log)
            try server.runAlone()
            defer { if server.isRunning { kill(server.processIdentifier, SIGKILL); server.waitForExit() } }
            func text() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
            let deadline = Date().addingTimeInterval(TestBounds.seconds(30))
            while !text().contains("token(s) from"), server.isRunning, Date() < deadline { usleep(100) }
            kill(server.processIdentifier, signal)
            if signal == SIGTERM {
                #expect(server.exited(within: TestBounds.seconds(10)), "round \(round): \(text())")
                #expect(server.terminationReason == .exit && server.terminationStatus == 0,
                        "round \(round): a stop's exit 0, not death by the signal (\(server.terminationReason.rawValue), \(server.terminationStatus)): \(text())")
            } else {
                let reloaded = (try? nativeAPIEventually("the held SIGHUP's reload", timeout: 10) { text().contains("SIGHUP: ") }) != nil
                #expect(reloaded && server.isRunning, "round \(round): the SIGHUP was lost or ended it: \(text())")
                kill(server.processIdentifier, SIGTERM)
                #expect(server.exited(within: TestBounds.seconds(10)) && server.terminationStatus == 0, "round \(round): \(text())")
            }
            if server.terminationReason == .uncaughtSignal { return }
        }
    }
}
