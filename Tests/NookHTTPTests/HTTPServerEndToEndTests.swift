import Foundation
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// H4 end to end: the built nook-http and a real nookd on the mock display, driven by curl and
/// by raw sockets (bytes curl would never send).
@Suite("H4 nook-http server end to end", .serialized, .ownThreads)
struct HTTPServerEndToEndTests {
    @Test func h1_healthzAnswersThroughNookdOverOneKeptAliveConnection() throws {
        let service = try HTTPService()
        // curl counts the connections each transfer opened (`%{num_connects}`): 1 for the
        // first, 0 for a second that went over the kept-alive one. Its verbose wording of the
        // reuse changed between releases (7.88's "Re-using existing connection", not in 8.14).
        let result = try curl(["-w", "connects=%{num_connects}\n", service.url + "/healthz", service.url + "/healthz"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.statusCodes == [200, 200], "\(result.output)")
        #expect(result.output.contains("\"nookd\":\"reachable\""))
        let connects = result.output.components(separatedBy: "connects=").dropFirst().map { $0.prefix(1) }
        #expect(connects == ["1", "0"], "one connection for both requests: \(result.output)")
        // HEAD: the GET route's head, no body.
        let head = try curl(["-I", service.url + "/healthz"])
        #expect(head.output.statusCodes == [200] && !head.output.contains("reachable"), "\(head.output)")
    }

    @Test func h1_pipelinedRequestsAreAnsweredInTheOrderAsked() throws {
        let service = try HTTPService()
        let connection = try RawConnection(port: service.port)
        try connection.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\nGET /nothing/is/served/here HTTP/1.1\r\n\r\nDELETE /healthz HTTP/1.1\r\n\r\nGET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n")
        let (text, closed) = connection.read()
        #expect(text.statusCodes == [200, 404, 405, 200], "\(text)")
        #expect(text.contains("Allow: GET, HEAD"))
        #expect(text.contains("\"code\":\"not_found\""))
        #expect(closed)
    }

    @Test func h4_nookdGoneIsA503WithRetryAfterAtOnceAndItsReturnIsFound() throws {
        let service = try HTTPService()
        #expect(try curl([service.url + "/healthz"]).output.statusCodes == [200])
        service.stopNookd()
        let down = try curl([service.url + "/healthz", service.url + "/healthz"])
        #expect(down.status == 0, "curl timed out or failed: \(down.error)")
        #expect(down.output.statusCodes == [503, 503], "\(down.output)")
        #expect(down.output.contains("Retry-After: "), "\(down.output)")
        #expect(down.output.contains("\"nookd\":\"unreachable\""))
        // Where nookd's socket is, is for the log, not for whoever asks.
        #expect(!down.output.contains(service.socket) && !down.output.contains("nookd.sock"), "\(down.output)")
        #expect(service.logText.contains(service.socket), "the log says where nook-http looked")
        try service.startNookd()
        let deadline = Date().addingTimeInterval(TestBounds.seconds(30))
        var codes: [Int] = []
        while codes != [200], Date() < deadline {
            codes = try curl([service.url + "/healthz"]).output.statusCodes
            if codes != [200] { usleep(200_000) }
        }
        #expect(codes == [200], "\(service.logText)")
    }

    @Test func h4_nookdClosingAnIdleLinkIsNoOutage() throws {
        let service = try HTTPService(nookdConfig: "[daemon]\nidle_timeout = 1\n")
        #expect(try curl([service.url + "/healthz"]).output.statusCodes == [200])
        // nookd closes the link once it has been idle for its timeout (it looks when its loop
        // wakes: another client's request wakes it); the next call reopens it.
        let deadline = Date().addingTimeInterval(TestBounds.seconds(30))
        while !service.logText.contains("nookd closed the idle connection"), Date() < deadline {
            usleep(500_000)
            _ = try? NookClient(path: service.socket).request(Request(id: .number(1), operation: .status))
        }
        #expect(service.logText.contains("nookd closed the idle connection"), "\(service.logText.suffix(3000))")
        #expect(try curl([service.url + "/healthz"]).output.statusCodes == [200], "\(service.logText)")
        #expect(!service.logText.contains("lost nookd"))
    }

    @Test func h4_sigtermStopsItGracefullyWithAKeptAliveClientConnected() throws {
        let service = try HTTPService()
        let idle = try RawConnection(port: service.port)
        try idle.send("GET /healthz HTTP/1.1\r\n\r\n")
        #expect(idle.read(until: { $0.contains("reachable") }).text.statusCodes == [200])
        kill(service.server.processIdentifier, SIGTERM)
        #expect(service.server.exited(within: TestBounds.seconds(10)), "\(service.logText)")
        #expect(service.server.terminationStatus == 0 && service.server.terminationReason == .exit)
        #expect(service.logText.contains("stopped"))
        #expect(idle.read(seconds: 5).closed)
    }

    @Test func h4_aTokenFileThatIsMissingOrADeviceStopsTheStartWithItsName() throws {
        let missing = try startFailure(config: "[http]\ntokens = \"/nonexistent/tokens\"\n")
        #expect(missing.hasPrefix("exit 78") && missing.contains("/nonexistent/tokens"), "\(missing)")
        let device = try startFailure(config: "[http]\ntokens = \"/dev/zero\"\n")
        #expect(device.hasPrefix("exit 78") && device.contains("character device"), "\(device)")
        let typo = try startFailure(config: "[http]\nmax_body = 5\n")
        #expect(typo.hasPrefix("exit 78") && typo.contains("http.max_body"), "\(typo)")
    }

    @Test func h4_startedWithoutNookdItServes503sRatherThanExiting() throws {
        let service = try HTTPService(withNookd: false)
        let answer = try curl([service.url + "/healthz"])
        #expect(answer.output.statusCodes == [503], "\(answer.output)")
        #expect(service.server.isRunning)
        try service.startNookd()
        let deadline = Date().addingTimeInterval(TestBounds.seconds(30))
        while try curl([service.url + "/healthz"]).output.statusCodes != [200], Date() < deadline { usleep(200_000) }
        #expect(try curl([service.url + "/healthz"]).output.statusCodes == [200], "\(service.logText)")
    }

    @Test func h4_aStoppedNookdIsAnswered503AfterHttpNookdTimeoutAndServedAgainOnceContinued() throws {
        let timeout = Int(TestBounds.seconds(1))
        let service = try HTTPService(config: "[http]\nnookd_timeout_s = \(timeout)\n")
        #expect(try curl([service.url + "/healthz"]).output.statusCodes == [200], "\(service.logs)")
        ProcessStop.stop(service.nookd.processIdentifier)
        defer { kill(service.nookd.processIdentifier, SIGCONT) }
        let stalled = try curl([service.url + "/healthz"])
        #expect(stalled.output.statusCodes == [503] && stalled.output.contains("Retry-After:"), "\(stalled.output)")
        #expect(stalled.output.contains("nookd went away before it answered"), "\(stalled.output)")
        #expect(service.logText.contains("nookd has not answered a call in \(timeout).0 seconds (http.nookd_timeout_s)"), "\(service.logs)")
        kill(service.nookd.processIdentifier, SIGCONT)
        let deadline = Date().addingTimeInterval(TestBounds.seconds(30))
        while try curl([service.url + "/healthz"]).output.statusCodes != [200], Date() < deadline { usleep(200_000) }
        #expect(try curl([service.url + "/healthz"]).output.statusCodes == [200], "\(service.logs)")
    }

    @Test func h4_twoThousandIdleConnectionsKeepNoNewClientOut() throws {
        let service = try HTTPService(config: "[http]\nmax_connections = 500\n")
        // The idle connections come from a child: the test process keeps few descriptors.
        let script = """
            import resource, socket, sys
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
            held = []
            for _ in range(2000):
                s = socket.create_connection(("127.0.0.1", \(service.port)))
                held.append(s)
            print("connected", flush=True)
            sys.stdin.read()
            """
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = ["-c", script]
        let input = Pipe.closedOnExec(), output = Pipe.closedOnExec()
        holder.standardInput = input
        holder.standardOutput = output
        holder.standardError = FileHandle.nullDevice
        try holder.runAlone()
        defer {
            try? input.fileHandleForWriting.close()
            if holder.isRunning { kill(holder.processIdentifier, SIGKILL) }
            holder.waitForExit()
        }
        var said = ""
        while !said.contains("connected") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            said += String(decoding: data, as: UTF8.self)
        }
        #expect(said.contains("connected"), "the 2,000 connections were not made: \(service.logText.suffix(2000))")
        let answer = try curl([service.url + "/healthz"])
        #expect(answer.output.statusCodes == [200], "\(answer.output) \(answer.error)\n\(service.logs)")
        #expect(service.server.isRunning)
        #expect(service.waitForLog("to make room"), "\(service.logText.suffix(2000))")
    }

    @Test func h4_aHeadTrickledInSlowlyIsCutAtItsTimeBoundWhileOthersAreServed() throws {
        let service = try HTTPService(config: "[http]\nheader_timeout_s = 1\n")
        let slow = try RawConnection(port: service.port)
        try slow.send("GET /healthz HTTP/1.1\r\n")
        var cut = false
        var text = ""
        // A header line every 200 ms: each byte keeps it alive no longer than the bound from its first.
        for index in 0..<100 where !cut {
            try? slow.send("X-\(index): y\r\n")
            let read = slow.read(seconds: 0.2)
            text += read.text
            cut = read.closed
            if index == 2 { #expect(try curl([service.url + "/healthz"]).output.statusCodes == [200]) }
        }
        #expect(cut, "the slow client was never cut: \(service.logText.suffix(2000))")
        #expect(text.statusCodes == [408], "\(text)")
    }

    @Test func h4_anOversizedBodyIsRefusedAfterTheAnswersOwedBeforeIt() throws {
        let service = try HTTPService(config: "[http]\nmax_body_bytes = 2048\n")
        let connection = try RawConnection(port: service.port)
        try connection.send("GET /healthz HTTP/1.1\r\n\r\nGET /healthz HTTP/1.1\r\n\r\nPOST /healthz HTTP/1.1\r\nContent-Length: 1000000\r\n\r\n" + String(repeating: "x", count: 4096))
        let (text, closed) = connection.read()
        #expect(text.statusCodes == [200, 200, 413], "\(text)")
        #expect(text.contains("\"code\":\"body_too_large\""))
        #expect(closed)
        // A body sent only after `100 Continue` (curl asks so for large bodies) is answered, not hung.
        let body = String(repeating: "y", count: 1500)
        let posted = try curl(["-X", "POST", "-H", "Content-Type: text/plain", "-H", "Expect: 100-continue", "--expect100-timeout", "30",
                               "--data-binary", body, service.url + "/healthz"])
        #expect(posted.output.contains("HTTP/1.1 100 Continue") && posted.output.statusCodes.last == 405, "\(posted.output)")
    }

    @Test func h4_aBodyOverTheLimitSentWholeWithoutExpectHearsThe413RatherThanAReset() throws {
        let service = try HTTPService()
        // Sent at once, as curl without `Expect:` and most libraries send: the 413 comes while
        // the client still writes, and it must still read it.
        let file = service.directory + "/big.json"
        try Data(repeating: UInt8(ascii: "x"), count: 800_000).write(to: URL(fileURLWithPath: file))
        for framing in [["-H", "Content-Type: application/json"], ["-H", "Content-Type: application/json", "-H", "Transfer-Encoding: chunked"]] {
            let posted = try curl(["-H", "Expect:"] + framing + ["--data-binary", "@" + file, service.url + "/api/v1/activities"])
            #expect(posted.status == 0, "curl failed (\(framing.last ?? "")): \(posted.error)")
            #expect(posted.output.statusCodes == [413], "\(posted.output.prefix(600))")
            #expect(posted.output.contains("\"code\":\"body_too_large\"") && posted.output.contains("Connection: close"), "\(posted.output.prefix(600))")
        }
        // Python's http.client writes the whole body before it reads a byte: an attachment of
        // a few megabytes, by length and chunked, as a script or a sender library posts it.
        let client = """
            import http.client, sys
            size = 4_000_000
            def chunks():
                for _ in range(size // 65536): yield b"x" * 65536
            for body, chunked in ((b"x" * size, False), (chunks(), True)):
                connection = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=20)
                try:
                    connection.request("POST", "/api/v1/activities", body=body, headers={"Content-Type": "application/json"}, encode_chunked=chunked)
                    answer = connection.getresponse()
                    print(answer.status, answer.getheader("Connection"), answer.read().decode())
                except OSError as error:
                    print("failed:", type(error).__name__, error)
            """
        let python = try runProgram("/usr/bin/python3", ["-c", client, String(service.port)])
        let lines = python.output.split(separator: "\n")
        #expect(lines.count == 2 && lines.allSatisfy { $0.hasPrefix("413 close ") && $0.contains("body_too_large") }, "\(python.output) \(python.error)")
        #expect(try curl([service.url + "/healthz"]).output.statusCodes == [200])
    }

    @Test func h4_whatARefusedClientKeepsSendingIsReadOnlyUpToABound() throws {
        let service = try HTTPService()
        #expect(try curl([service.url + "/healthz"]).output.statusCodes == [200])
        func descriptors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(service.server.processIdentifier)/fd").count) ?? -1 }
        let before = descriptors()
        // A client that declares more than it sends, then sends nothing, is let go.
        let quiet = try RawConnection(port: service.port)
        try quiet.send("POST /api/v1/activities HTTP/1.1\r\nHost: localhost\r\nContent-Length: 500000\r\n\r\nxx")
        let (text, closed) = quiet.read()
        #expect(text.statusCodes == [413] && closed, "the answer, then the end of nook-http's side: \(text)")
        let deadline = Date().addingTimeInterval(TestBounds.seconds(30))
        while descriptors() > before, Date() < deadline { usleep(100_000) }
        #expect(descriptors() == before, "nook-http still holds the connection of a client that sends nothing")
        // A body declared far over the bound and sent without end: nook-http reads a bounded
        // amount of it after its 413, then closes; the client's sending then fails.
        let connection = try RawConnection(port: service.port)
        try connection.send("POST /api/v1/activities HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000000000\r\n\r\n")
        let block = [UInt8](repeating: UInt8(ascii: "x"), count: 65536)
        var sent = 0
        while sent < 500_000_000, (try? connection.send(block)) != nil { sent += block.count }
        #expect(sent < 500_000_000, "nook-http read on without bound")
        #expect(try curl([service.url + "/healthz"]).output.statusCodes == [200])
    }

    @Test func h1_anEncodedSlashStaysInItsPathSegmentThroughTheServer() throws {
        let service = try HTTPService()
        let created = try curl(["-H", "Content-Type: application/json", "-d", #"{"title":"Stays","dwell":3600}"#, service.url + "/api/v1/activities"])
        let body = created.output.components(separatedBy: "\r\n\r\n").last ?? ""
        let id = try #require(try JSONValue.parse(Array(body.utf8))["id"]?.text, "\(created.output)")
        // One segment "<id>/dismiss" of the activity path: not the dismiss route.
        let encoded = try curl(["-X", "POST", service.url + "/api/v1/activities/\(id)%2Fdismiss"])
        #expect(encoded.output.statusCodes == [405] && encoded.output.contains("Allow: GET, PATCH, DELETE, HEAD"), "\(encoded.output)")
        #expect(try curl([service.url + "/api/v1/activities/\(id)"]).output.statusCodes == [200], "the card is still there")
        // A topic holding a slash is no topic, not topic "a" with sequence "b".
        let topic = try curl(["-d", "hello", service.url + "/a%2Fb"])
        #expect(topic.output.statusCodes == [404] && topic.output.contains("a/b"), "\(topic.output)")
        let cleared = try curl(["-X", "PUT", service.url + "/home%2Fseq%2Fclear"])
        #expect(cleared.output.statusCodes == [404], "\(cleared.output)")
        // Encoded letters are still the path they spell.
        #expect(try curl(["-X", "POST", service.url + "/api/v1/activities/\(id)/%64ismiss"]).output.statusCodes == [200])
    }

    @Test func h1_a405Or404NamesThePathAsTheClientSentItNotDecoded() throws {
        let service = try HTTPService()
        let connection = try RawConnection(port: service.port)
        try connection.send("DELETE /api/v1/%73tatus HTTP/1.1\r\nHost: localhost\r\n\r\nGET /line%0Abreak HTTP/1.1\r\nHost: localhost\r\n\r\n"
                            + "GET /api/v1/nothing%0Ahere HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        let (text, closed) = connection.read()
        #expect(text.statusCodes == [405, 404, 404] && closed, "\(text)")
        #expect(text.contains(#""message":"/api/v1/%73tatus does not take DELETE; it takes GET, HEAD""#), "\(text)")
        // No ntfy topic (a line break is not in a topic's name): its escaped line break stays
        // as sent, not a line of the message.
        #expect(text.contains(#""message":"nothing is served at /line%0Abreak""#), "\(text)")
        #expect(text.contains(#""message":"nothing is served at /api/v1/nothing%0Ahere""#), "\(text)")
    }

    @Test func h4_aChunkSizeTooLargeIsA413SayingSoThatAClientStillSendingHears() throws {
        let service = try HTTPService()
        let connection = try RawConnection(port: service.port)
        try connection.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\nPOST /api/v1/activities HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                            + "Transfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFF\r\n" + String(repeating: "x", count: 200_000))
        let (text, closed) = connection.read()
        #expect(text.statusCodes == [200, 413] && closed, "the answer owed before it, then the 413 (not a reset): \(text.prefix(2000))")
        #expect(text.contains(#""code":"body_too_large""#) && text.contains("a chunk of size 0xFFFFFFFFFFFF makes the request body more than 65536 bytes")
                && !text.contains("hexadecimal"), "\(text.prefix(2000))")
        #expect(try curl([service.url + "/healthz"]).output.statusCodes == [200])
    }

    @Test func h2_aNULInAnNtfyBodyIsA400NamingTheMessageNotNookdsRefusal() throws {
        let service = try HTTPService()
        let file = service.directory + "/nul.txt"
        try Data("before\u{0}after".utf8).write(to: URL(fileURLWithPath: file))
        let posted = try curl(["--data-binary", "@" + file, service.url + "/alerts"])
        #expect(posted.output.statusCodes == [400], "\(posted.output)")
        #expect(posted.output.contains(" (message): ") && posted.output.contains("NUL"), "\(posted.output)")
        let titled = try curl(["-d", "x", service.url + "/alerts?title=a%00b"])
        #expect(titled.output.statusCodes == [400] && titled.output.contains(" (title): "), "\(titled.output)")
    }

    @Test func h4_aLineBreakARequestSmugglesIntoTheLogIsShownEscapedNotAsALineOfItsOwn() throws {
        let service = try HTTPService()
        let connection = try RawConnection(port: service.port)
        // A query parameter's name decodes to two lines, and its value is a bad escape: the refusal names it.
        try connection.send("GET /healthz?forged%0Anook-http%3A%20all%20is%20well=%ZZ HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(connection.read().text.statusCodes == [400])
        #expect(service.waitForLog("forged\\nnook-http: all is well"), "the name, escaped: \(service.logText.suffix(2000))")
        #expect(!service.logText.contains("\nnook-http: all is well"), "a line the client wrote: \(service.logText.suffix(2000))")
        // A sender's field echoed in a note (an AWTRIX icon that is not the board's).
        let posted = try curl(["-d", #"{"text": "hi", "icon": "x\nnook-http: forged note"}"#, service.url + "/api/notify"])
        #expect(posted.output.statusCodes == [200], "\(posted.output)")
        // (The note writes the line break out itself, as an app's remark does.)
        #expect(service.waitForLog("x\\u{a}nook-http: forged note"), "\(service.logText.suffix(2000))")
        #expect(!service.logText.contains("\nnook-http: forged note"))
    }

    @Test func v1_theStreamsHeadSaysCacheControlOnceForGetAndHead() throws {
        let service = try HTTPService()
        for method in ["HEAD", "GET"] {
            let connection = try RawConnection(port: service.port)
            try connection.send("\(method) /api/v1/screen/stream HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let head = connection.read(until: { $0.contains("\r\n\r\n") }).text.components(separatedBy: "\r\n\r\n").first ?? ""
            #expect(head.statusCodes == [200], "\(method): \(head)")
            #expect(head.lowercased().components(separatedBy: "\r\ncache-control:").count == 2, "\(method): one Cache-Control field: \(head)")
        }
    }

    @Test func h4_aClientThatNeverReadsItsAnswersHoldsNeitherMemoryNorTheLoop() throws {
        let service = try HTTPService()
        func residentKiB() -> Int {
            let status = (try? String(contentsOfFile: "/proc/\(service.server.processIdentifier)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        #expect(try curl([service.url + "/nothing/is/served/here"]).output.statusCodes == [404])
        let before = residentKiB()
        // Pipelined requests sent until the kernel takes no more, their answers never read.
        let stalled = try RawConnection(port: service.port)
        _ = fcntl(stalled.fd, F_SETFL, fcntl(stalled.fd, F_GETFL) | O_NONBLOCK)
        let request = Array("GET /nothing/at/all HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
        let burst = [UInt8]((0..<2000).flatMap { _ in request })
        var sent = 0
        var heldBack = false
        let deadline = Date().addingTimeInterval(TestBounds.seconds(20))
        while Date() < deadline, !heldBack {
            let count = burst.withUnsafeBytes { Glibc.send(stalled.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 { sent += count; continue }
            // Full for now: held back only if the server takes nothing more for two seconds.
            var entry = pollfd(fd: stalled.fd, events: Int16(POLLOUT), revents: 0)
            heldBack = poll(&entry, 1, 2000) == 0
        }
        // The server stops reading once it owes the client enough: the sockets fill and the
        // sender is held back, rather than nook-http answering into memory without end.
        #expect(heldBack, "the server went on reading: \(sent) bytes taken")
        #expect(service.waitForLog("bytes of answers unread; its further requests wait"), "\(service.logText.suffix(1000))")
        // Others are served meanwhile, and the stalled client cost a bounded amount of memory.
        #expect(try curl([service.url + "/healthz"]).output.statusCodes == [200])
        let grown = residentKiB() - before
        if !Built.isInstrumented {
            #expect(grown < 16 * 1024, "nook-http grew by \(grown) KiB for a client that reads nothing")
        }
    }

    @Test func h4_tokensNameTheCallerAndAreRateLimited() throws {
        let token = "nook_test-token-for-grafana"
        let tokens = NSTemporaryDirectory() + "nook-http-tokens-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let made = try runProgram(Built.directory + "/nook-http", ["hash-token", "grafana", "read"])
        #expect(made.status == 0 && made.output.hasPrefix("grafana read sha256:") && made.error.contains("nook_"), "\(made)")
        try "\(made.output)grafana2 read sha256:\(sha256Hex(token))\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: tokens) }
        chmod(tokens, 0o644)
        let refused = try startFailure(config: "[http]\ntokens = \"\(tokens)\"\n")
        #expect(refused.contains(tokens) && refused.contains("mode 644"), "\(refused)")
        chmod(tokens, 0o600)
        let service = try HTTPService(config: "[http]\ntokens = \"\(tokens)\"\nrate_limit_per_s = 0.01\nrate_limit_burst = 2\n")
        let none = try curl([service.url + "/healthz"])
        #expect(none.output.statusCodes == [401] && none.output.contains("WWW-Authenticate: Bearer"), "\(none.output)")
        #expect(try curl(["-H", "Authorization: Bearer wrong", service.url + "/healthz"]).output.statusCodes == [401])
        #expect(try curl(["-H", "Authorization: Bearer \(token)", service.url + "/healthz"]).output.statusCodes == [200])
        #expect(try curl(["-u", ":\(token)", service.url + "/healthz"]).output.statusCodes == [200])
        let limited = try curl([service.url + "/healthz?token=\(token)"])
        #expect(limited.output.statusCodes == [429] && limited.output.contains("Retry-After: "), "\(limited.output)")
    }
}

func sha256Hex(_ text: String) -> String {
    var digest = ""
    if let result = try? runProgram("/usr/bin/sha256sum", [], input: text) { digest = String(result.output.prefix(64)) }
    return digest
}

/// nook-http started with `config`, which must make it exit: what it said.
func startFailure(config: String) throws -> String {
    let path = NSTemporaryDirectory() + "nook-http-config-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).toml"
    try config.write(toFile: path, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = try runProgram(Built.directory + "/nook-http", ["--config", path, "--listen", "127.0.0.1:0", "--socket", "/nonexistent/nookd.sock"])
    return "exit \(result.status): \(result.error)"
}
