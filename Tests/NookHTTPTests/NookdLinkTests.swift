import Foundation
import NookLogging
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

    @Test func h4_callsPastTheBoundsWaitUnsentAndALostLinkTellsAChangeNookdMayHaveTakenFromOneNeverSent() throws {
        let stuck = try StuckSocket()
        let now = Locked<Duration>(.seconds(1000))
        var options = NookdLink.Options(socketPath: stuck.path)
        options.callTimeout = .seconds(2)
        options.waitingCallTimeout = nil
        options.maximumInFlight = 2
        options.maximumWaiting = 1
        let link = NookdLink(options: options, logger: Logger(label: "test"), clock: { now.withLock { $0 } })
        var outcomes: [String: NookdCallError] = [:]
        func call(_ name: String, _ operation: NookOperation) {
            link.call(Request(id: nil, operation: operation)) { result in
                if case .failure(let error) = result { outcomes[name] = error }
            }
            link.sendQueued()
        }
        // Written to nookd's socket (the kernel queues them for the connection nobody accepted).
        call("card", .enqueue(NookActivity(title: "maybe shown"), module: nil, wait: false))
        call("read", .status)
        // Past the calls in flight: it waits, unsent; one more finds the waiting room full.
        call("waiting", .enqueue(NookActivity(title: "never sent"), module: nil, wait: false))
        #expect(outcomes.isEmpty && link.callsInFlight == 2 && link.callsWaiting == 1, "\(outcomes)")
        call("refused", .status)
        guard case .unavailable(let full)? = outcomes["refused"] else { Issue.record("\(outcomes)"); return }
        #expect(full.contains("nothing was sent"), "\(full)")

        // nookd never answers: the link is lost at the call timeout.
        now.withLock { $0 += .seconds(2) }
        _ = link.tick(now: now.withLock { $0 })
        #expect(!link.isConnected)
        guard case .outcomeUnknown(let unknown)? = outcomes["card"] else { Issue.record("the card: \(String(describing: outcomes["card"]))"); return }
        #expect(unknown.contains("may or may not have been carried out"), "\(unknown)")
        guard case .unavailable? = outcomes["read"] else { Issue.record("a read: \(String(describing: outcomes["read"]))"); return }
        guard case .unavailable(let unsent)? = outcomes["waiting"] else { Issue.record("unsent: \(String(describing: outcomes["waiting"]))"); return }
        // (It waited as long as a call may: it gave up at the same moment, unsent.)
        #expect(unsent.contains("nothing was sent") || unsent.contains("never sent"), "\(unsent)")
        let answer = NativeAPIErrors.error(.outcomeUnknown(unknown))
        #expect(answer.status == 504 && answer.code == "outcome_unknown" && !answer.headers.contains { $0.name == "Retry-After" })
    }

    /// A connection the link made to the listening socket, or -1 if none came within 10 s.
    static func accepted(_ listening: Int32) -> Int32 {
        var entry = pollfd(fd: listening, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 10_000) == 1 else { return -1 }
        return accept(listening, nil, nil)
    }

    /// Reads one line from a connected socket (blocking), without its newline.
    static func readLine(_ fd: Int32) -> String {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while recv(fd, &byte, 1, 0) == 1, byte != 0x0A { line.append(byte) }
        return String(decoding: line, as: UTF8.self)
    }

    @Test func h4_nookdClosingTheIdleLinkAsACallIsWrittenSendsItOnANewLinkAndLosesNothing() throws {
        let nookd = try StuckSocket()
        var options = NookdLink.Options(socketPath: nookd.path)
        options.waitingCallTimeout = nil
        let link = NookdLink(options: options, logger: Logger(label: "test"))
        // Connected, nothing in flight: nookd closes the link as idle before nook-http has read
        // the close, and a call (a change) is written on it then.
        _ = link.tick(now: .zero)
        #expect(link.isConnected)
        let idle = Self.accepted(nookd.fd)
        #expect(idle >= 0)
        close(idle)
        var outcome: Result<JSONValue, NookdCallError>?
        link.call(Request(id: nil, operation: .enqueue(NookActivity(title: "after a quiet spell"), module: nil, wait: false))) { outcome = $0 }
        link.sendQueued()
        // The call went on a second connection, whole, and its answer is the caller's.
        let second = Self.accepted(nookd.fd)
        defer { if second >= 0 { close(second) } }
        guard second >= 0, link.isConnected else { Issue.record("no second link; the call: \(String(describing: outcome))"); return }
        let line = Self.readLine(second)
        #expect(line.contains("after a quiet spell"), "\(line)")
        guard case .number(let number)? = (try? JSONValue.parse(Array(line.utf8)))?["id"] else { Issue.record("no id in \(line)"); return }
        let answer = Array("{\"id\":\(Int(number)),\"ok\":true}\n".utf8)
        #expect(send(second, answer, answer.count, 0) == answer.count)
        link.handle(revents: Int16(POLLIN))
        guard case .success? = outcome else { Issue.record("the call: \(String(describing: outcome))"); return }
    }

    @Test func h4_nookdGoneWhenTheIdleLinkClosedFailsTheUnsentCallAsNothingDone() throws {
        var nookd: StuckSocket? = try StuckSocket()
        var options = NookdLink.Options(socketPath: nookd!.path)
        options.waitingCallTimeout = nil
        let link = NookdLink(options: options, logger: Logger(label: "test"))
        _ = link.tick(now: .zero)
        close(Self.accepted(nookd!.fd))
        // nookd stopped: no new link to move the call to.
        nookd = nil
        var outcome: Result<JSONValue, NookdCallError>?
        link.call(Request(id: nil, operation: .enqueue(NookActivity(title: "unsent"), module: nil, wait: false))) { outcome = $0 }
        link.sendQueued()
        #expect(!link.isConnected)
        guard case .failure(.unavailable(let reason))? = outcome else { Issue.record("the call: \(String(describing: outcome))"); return }
        #expect(reason.contains("nothing was done"), "\(reason)")
    }

    @Test func h4_nookdRefusingTheLinkAtItsConnectionLimitFailsEveryCallAsNothingDone() throws {
        let nookd = try StuckSocket()
        var options = NookdLink.Options(socketPath: nookd.path)
        options.waitingCallTimeout = nil
        let link = NookdLink(options: options, logger: Logger(label: "test"))
        var outcomes: [String: Result<JSONValue, NookdCallError>] = [:]
        for title in ["first", "second"] {
            link.call(Request(id: nil, operation: .enqueue(NookActivity(title: title), module: nil, wait: false))) { outcomes[title] = $0 }
        }
        link.sendQueued()
        // nookd at its limit: it says why, with no id, and closes without reading a byte (the
        // calls' bytes still unread in its socket, so nook-http's next read may be a reset).
        let refused = Self.accepted(nookd.fd)
        #expect(refused >= 0)
        let refusal = Array((ResponseLine.failure(id: nil, error: ProtocolError(.unavailable, "nookd already has 64 connections (daemon.max_connections)")).encoded() + "\n").utf8)
        #expect(send(refused, refusal, refusal.count, 0) == refusal.count)
        close(refused)
        link.handle(revents: Int16(POLLIN))
        #expect(!link.isConnected)
        for title in ["first", "second"] {
            guard case .failure(.unavailable(let reason))? = outcomes[title] else {
                Issue.record("\(title): \(String(describing: outcomes[title])), not a 503 that says nothing was done"); continue
            }
            #expect(reason.contains("max_connections") && reason.contains("not carried out"), "\(reason)")
        }
    }

    @Test func h4_n2_nookdStoppingFailsTheCallsAfterTheLastItBeganAsNotCarriedOutAndAnUnansweredOneItBeganAsUnknown() throws {
        let nookd = try StuckSocket()
        var options = NookdLink.Options(socketPath: nookd.path)
        options.waitingCallTimeout = nil
        let link = NookdLink(options: options, logger: Logger(label: "test"))
        let titles = ["answered", "begun", "not begun", "also not begun"]
        var outcomes: [String: Result<JSONValue, NookdCallError>] = [:]
        for title in titles {
            link.call(Request(id: nil, operation: .enqueue(NookActivity(title: title), module: nil, wait: false))) { outcomes[title] = $0 }
        }
        link.sendQueued()
        // Closed once, below, where nookd stops: a second close (a defer) would close whatever
        // another test's thread had been given that number since, a pipe read then failing EBADF.
        let served = Self.accepted(nookd.fd)
        guard served >= 0 else { Issue.record("the link never connected"); return }
        var ids: [Int] = []
        for _ in titles {
            guard case .number(let id)? = (try? JSONValue.parse(Array(Self.readLine(served).utf8)))?["id"] else { Issue.record("a call without an id"); return }
            ids.append(Int(id))
        }
        // nookd answers the first, begins the second and stops: its last line names the second.
        let lines = "{\"id\":\(ids[0]),\"ok\":true}\n"
            + "{\"v\":1,\"ok\":false,\"error\":{\"code\":\"unavailable\",\"message\":\"nookd is stopping\"},\"started_through\":\(ids[1])}\n"
        let bytes = Array(lines.utf8)
        #expect(send(served, bytes, bytes.count, 0) == bytes.count)
        close(served)
        link.handle(revents: Int16(POLLIN))
        #expect(!link.isConnected)
        guard case .success? = outcomes["answered"] else { Issue.record("answered: \(String(describing: outcomes["answered"]))"); return }
        guard case .failure(.outcomeUnknown)? = outcomes["begun"] else {
            Issue.record("begun and never answered: \(String(describing: outcomes["begun"])), not a 504"); return
        }
        for title in ["not begun", "also not begun"] {
            guard case .failure(.unavailable(let reason))? = outcomes[title] else {
                Issue.record("\(title): \(String(describing: outcomes[title])), not a 503 that says nothing was done"); continue
            }
            #expect(reason.contains("nookd is stopping") && reason.contains("not carried out"), "\(reason)")
        }
    }

    @Test func h4_aHistoryPageCountsItsSizeAgainstTheAnswersInFlight() {
        let page = NookOperation.history(HistoryQuery(limit: 500)).expectedAnswerBytes
        #expect(page >= 500 * 400 && page <= NookProtocol.answerPageBytes + 4096, "\(page)")
        #expect(NookOperation.history(HistoryQuery()).expectedAnswerBytes > NookProtocol.answerPageBytes / 2, "no limit: up to a page")
        #expect(NookOperation.enqueue(NookActivity(title: "t"), module: nil, wait: false).expectedAnswerBytes < 8192)
        // The default bounds let several pages go at once, and not sixty.
        let options = NookdLink.Options(socketPath: "/nonexistent")
        #expect((2...16).contains(options.maximumAnswerBytes / page), "\(options.maximumAnswerBytes / page) pages")
    }

    /// `app-list` answers every app at once: its hint covers 64 apps each as large as nookd
    /// takes one (every text at its limit in four-byte characters, escaped as nookd writes them),
    /// and is not so large that one listing stops every other call.
    @Test func a3_theAppListsHintCoversEveryAppAtItsLargest() throws {
        let wide = "\u{1F600}"
        let app = NookApp(name: String(repeating: wide, count: NookApp.Limits.name.characters),
                          content: .fragments((0..<NookApp.Limits.fragments).map { index in
                              NookApp.Fragment(String(repeating: wide, count: NookApp.Limits.text.characters / NookApp.Limits.fragments),
                                               tint: NookTint(parsing: "#FF00FF"))
                          }),
                          icon: "/" + String(repeating: "i", count: NookActivity.Limits.systemImage.bytes - 1), tint: NookTint(parsing: "#00FF00")!,
                          progress: 0.123456789, chart: NookApp.Chart(.line, Array(repeating: -123456789012345.67, count: NookApp.Limits.chartValues)),
                          duration: .seconds(3599), position: 9999, lifetime: .seconds(2_591_999), lifetimeMode: .stale, hasAction: true,
                          sender: NookSender(uid: 4_294_967_294, pid: 2_147_483_646, name: String(repeating: "n", count: SenderPayload.maximumNameBytes), relayed: true))
        try app.validate()
        let one = AppListAnswer(apps: [AppState(app: app, setAt: 1_764_120_000.123456, stale: true, showing: true)]).json.serialized.utf8.count
        let hint = NookOperation.appList.expectedAnswerBytes
        #expect(hint >= one * NookApp.Limits.count, "the hint \(hint) is less than 64 apps of \(one) bytes")
        #expect(hint <= NookdLink.Options(socketPath: "/nonexistent").maximumAnswerBytes / 2, "\(hint)")
        #expect(NookOperation.appShow("x").expectedAnswerBytes >= one, "one app of \(one) bytes")
    }

    /// What the links log, kept for the test to read.
    struct KeptLog: LogHandler {
        let lines: Locked<[String]>
        var logLevel: Logger.Level = .trace
        func log(event: LogEvent) {
            lines.withLock { $0.append("\(event.level) \(event.message)") }
        }
    }

    @Test func h4_eachLinkSaysWhichItIsAndTheLiveViewsNamesTheFrameWaitInItsTimeout() throws {
        let stuck = try StuckSocket()
        let now = Locked<Duration>(.seconds(1000))
        let lines = Locked<[String]>([])
        var options = NookdLink.Options(socketPath: stuck.path)
        options.callTimeout = .seconds(2)
        options.waitingCallTimeout = .seconds(Int64(NookProtocol.frameWaitSeconds) + 2)
        let link = NookdLink(options: options, logger: Logger(label: "test", factory: { _ in KeptLog(lines: lines) }),
                             clock: { now.withLock { $0 } })
        let waiting = try #require(link.waiting)
        var failure: NookdCallError?
        link.call(Request(id: nil, operation: .status)) { _ in }
        link.call(Request(id: nil, operation: .frame(after: 1))) { result in
            if case .failure(let error) = result { failure = error }
        }
        link.sendQueued()
        waiting.sendQueued()
        #expect(waiting.callsInFlight == 1 && link.callsInFlight == 1, "the frame wait went on the link for calls")
        let connected = lines.withLock { $0 }.filter { $0.contains("connected to nookd") }
        #expect(connected.count == 2 && Set(connected).count == 2, "\(connected)")
        #expect(connected.contains { $0.hasSuffix("for calls") } && connected.contains { $0.hasSuffix("for the live view's waiting calls") },
                "\(connected)")
        now.withLock { $0 += .seconds(Int64(NookProtocol.frameWaitSeconds) + 2) }
        _ = waiting.tick(now: now.withLock { $0 })
        #expect(failure != nil, "the frame wait outlived its bound")
        let lost = lines.withLock { $0 }.filter { $0.contains("lost nookd") }
        #expect(lost.count == 1 && lost[0].contains("(http.nookd_timeout_s plus the \(NookProtocol.frameWaitSeconds) s a frame may wait)"), "\(lost)")
    }

    @Test func h4_aStopWithNoCallInFlightWarnsOfNothingAndOneWithACallSaysWhatFailed() throws {
        let stuck = try StuckSocket()
        func stopped(withACall: Bool) -> [String] {
            let lines = Locked<[String]>([])
            var options = NookdLink.Options(socketPath: stuck.path)
            options.waitingCallTimeout = nil
            let link = NookdLink(options: options, logger: Logger(label: "test", factory: { _ in KeptLog(lines: lines) }))
            _ = link.tick(now: .zero)
            if withACall {
                link.call(Request(id: nil, operation: .enqueue(NookActivity(title: "in flight"), module: nil, wait: false))) { _ in }
                link.sendQueued()
            }
            link.abandon("nook-http stopped before nookd answered")
            return lines.withLock { $0 }.filter { $0.hasPrefix("warning") }
        }
        #expect(stopped(withACall: false).isEmpty)
        let warned = stopped(withACall: true)
        #expect(warned.count == 1 && warned[0].contains("of 1 call(s) in flight or waiting, 1 that nookd may have carried out"), "\(warned)")
    }
}
