import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing
@testable import NookDaemon

/// C1 and C4 as decisions on the server's clock: no sleeping, every boundary checked.
@Suite("C1 C4 connection timeouts, slot shares and answer pages (decisions)")
struct ConnectionLimitsUnitTests {
    @Test func c1_aHalfLineTimesOutButNookdsOwnBackPressureAndStreamsDoNot() {
        var limits = ConnectionLimits()
        limits.partialLineTimeout = .seconds(10)
        limits.idleTimeout = .seconds(300)
        let heard = Duration.seconds(1000)
        func verdict(partial: Bool, answering: Bool = false, companion: Bool = false, answered: Duration = .zero, at now: Duration) -> ConnectionLimits.Verdict {
            limits.verdict(partial: partial, answering: answering, companion: companion, lastHeard: heard, lastAnswered: answered, now: now)
        }
        #expect(verdict(partial: true, at: heard + .seconds(9)) == .keep(until: heard + .seconds(10)))
        #expect(verdict(partial: true, at: heard + .seconds(10)) == .partialLine)
        // nookd stopped reading at its in-flight limit: its own back-pressure, not the client's stall.
        #expect(verdict(partial: true, answering: true, at: heard + .seconds(1000)) == .keep(until: nil))
        // Counted from the last answer: a slow request does not use up the client's time.
        #expect(verdict(partial: true, answered: heard + .seconds(60), at: heard + .seconds(65)) == .keep(until: heard + .seconds(70)))
        #expect(verdict(partial: false, at: heard + .seconds(299)) == .keep(until: heard + .seconds(300)))
        #expect(verdict(partial: false, at: heard + .seconds(300)) == .idle)
        // A watch is a request in flight for as long as it streams; a bridge's request
        // connection beside its own watch is not idle either; a half line is a stall regardless.
        #expect(verdict(partial: false, answering: true, at: heard + .seconds(86_400)) == .keep(until: nil))
        #expect(verdict(partial: false, companion: true, at: heard + .seconds(86_400)) == .keep(until: nil))
        #expect(verdict(partial: true, companion: true, at: heard + .seconds(10)) == .partialLine)
        // A half line is timed from its first byte: a byte now and then does not extend it.
        #expect(limits.verdict(partial: true, answering: false, lastHeard: heard + .seconds(9), lineStarted: heard,
                               lastAnswered: .zero, now: heard + .seconds(10)) == .partialLine)
    }

    @Test func c4_theLastSlotsAreKeptForRootAndEachUserHasAShareOfTheRest() {
        let limits = ConnectionLimits()
        // 256 slots: the last 16 for root and the admin group, 64 for each other user.
        #expect(limits.refusal(open: 10, ofUser: 63, maximum: 256, privileged: false, uid: 1000) == nil)
        #expect(limits.refusal(open: 10, ofUser: 64, maximum: 256, privileged: false, uid: 1000)?.contains("daemon.max_connections_per_user (64)") == true)
        #expect(limits.refusal(open: 239, ofUser: 0, maximum: 256, privileged: false, uid: 1001) == nil)
        #expect(limits.refusal(open: 240, ofUser: 0, maximum: 256, privileged: false, uid: 1001)?.contains("kept for root") == true)
        #expect(limits.refusal(open: 255, ofUser: 200, maximum: 256, privileged: true, uid: 0) == nil)
        #expect(limits.refusal(open: 256, ofUser: 0, maximum: 256, privileged: true, uid: 0)?.contains("daemon.max_connections") == true)
        var one = ConnectionLimits()
        one.perUser = 1
        #expect(one.refusal(open: 0, ofUser: 1, maximum: 2, privileged: false, uid: 7) != nil && one.refusal(open: 1, ofUser: 0, maximum: 2, privileged: false, uid: 8) == nil,
                "no reserve on a tiny limit")
    }

    @Test func c1_titlesInTheLogAreShortenedByCharactersAndBytes() {
        #expect(LogText.short("Build finished") == "Build finished")
        #expect(LogText.short("two\nlines") == "two lines")
        let accents = LogText.short(String(repeating: "é", count: 10_000))
        #expect(accents.count == LogText.maximumCharacters + 1 && accents.hasSuffix("…"))
        let wide = LogText.short(String(repeating: "😀", count: 1000))
        #expect(wide.utf8.count <= LogText.maximumBytes && wide.hasSuffix("…"), "\(wide.utf8.count) bytes")
        // One character of many code points (a base and thousands of combining marks).
        let heavy = LogText.short("e" + String(repeating: "\u{301}", count: 30_000) + " tail")
        #expect(heavy.utf8.count <= LogText.maximumBytes, "\(heavy.utf8.count) bytes")
    }

    @Test func u4_anEntrysMeasureFollowsItsLineInTheFileEvenForTextsJSONEscapes() {
        for title in [String(repeating: "a", count: 500), String(repeating: "\u{1}", count: 500), String(repeating: "\"", count: 500), "short"] {
            var activity = NookActivity(title: title, subtitle: String(repeating: "\\", count: 300))
            activity.coalescingKey = "key"
            activity.sender = NookSender(uid: 1000, pid: 42, name: "curl")
            let entry = HistoryEntry(number: 7, activity: activity, module: "default", enqueuedAt: 1.7e9, shownAt: 1.7e9 + 1,
                                     endedAt: 1.7e9 + 2, ending: "completed", onGlass: true)
            let line = 9 + entry.json.serializedBytes.count + 1
            let measured = ActivityHistory.size(of: entry)
            #expect(measured >= line * 9 / 10 && measured <= line + 400, "\(measured) for a line of \(line)")
        }
    }

    @Test func c1_aListTooLargeForOneAnswerComesInPagesThatJoinToTheWhole() throws {
        func card(_ n: Int) -> NookActivity { NookActivity(title: "card \(n) " + String(repeating: "x", count: 300)) }
        let modules = [ListAnswer.Module(name: "default", current: card(0), pending: (1...40).map(card)),
                       ListAnswer.Module(name: "empty", current: nil, pending: []),
                       ListAnswer.Module(name: "third", current: nil, pending: (41...45).map(card))]
        var pages: [ListAnswer] = [ListAnswer.page(of: modules, offset: 0, budget: 4096)]
        while let next = pages.last?.next, pages.count < 100 { pages.append(ListAnswer.page(of: modules, offset: next, budget: 4096)) }
        #expect(pages.count > 5, "\(pages.count) pages")
        for page in pages {
            let bytes = page.json.serializedBytes.count
            #expect(bytes < 4096 + 512, "a page holds what fits: \(bytes)")
            #expect(try ListAnswer(json: page.json).next == page.next, "next survives the wire")
        }
        #expect(pages[0].modules.map(\.name) == ["default", "empty", "third"], "the first page names every module")
        var whole = ListAnswer(modules: pages[0].modules)
        var seen = Set(whole.modules.flatMap { ($0.current.map { [$0.id] } ?? []) + $0.pending.map(\.id) })
        for page in pages.dropFirst() { whole.join(page, seen: &seen) }
        #expect(whole == ListAnswer(modules: modules))
        #expect(ListAnswer.page(of: modules, offset: 0).next == nil, "one page when it fits")
        #expect(HistoryAnswer.pageCount(sizes: [10, 10, 10], budget: 25) == 2)
        #expect(HistoryAnswer.pageCount(sizes: [10, 100], budget: 50) == 1, "at least the newest, even alone over the budget")
    }
}

/// C1, C4 and U4 against a running nookd: real clients that stall, never read, or ask for more
/// than one answer holds.
@Suite("C1 C4 U4 slow, stalled and greedy clients against nookd", .serialized, .ownThreads)
struct SlowClientTests {
    func status(_ daemon: DaemonProcess) throws -> StatusAnswer {
        try StatusAnswer(json: daemon.request(.status))
    }

    /// Enqueues `count` activities with one key over one pipelining connection: while the
    /// queue is suspended each replaces the one before, which ends (coalesced) into the history.
    func flood(_ daemon: DaemonProcess, count: Int, title: String, subtitle: String? = nil) throws {
        let client = try daemon.client(timeout: .seconds(300))
        var sent = 0
        while sent < count {
            let batch = min(200, count - sent)
            var lines = ""
            for number in sent..<(sent + batch) {
                var activity = NookActivity(title: "\(number) \(title)")
                activity.subtitle = subtitle
                activity.coalescingKey = "flood"
                lines += Request(id: .number(Double(number)), operation: .enqueue(activity, module: nil, wait: false)).encoded() + "\n"
            }
            try client.sendRaw(Array(lines.utf8))
            for _ in 0..<batch {
                guard let line = try client.readLine() else { usleep(500_000); throw DaemonFailure("nookd closed the flood's connection: \(daemon.log.split(separator: "\n").filter { $0.contains("dropped") || $0.contains("connected") || $0.contains("error") }.suffix(30).joined(separator: "\n"))") }
                guard case .success = try ResponseLine.decode(line) else { throw DaemonFailure("refused: \(String(decoding: line, as: UTF8.self))") }
            }
            sent += batch
        }
    }

    @Test func c1_aClientStalledMidLineIsClosedAndAnIdleOneLaterWhileAWatcherStays() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[daemon]\npartial_line_timeout = 1\nidle_timeout = 3\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        // The watcher is a process of its own: a request connection of the process that
        // watches counts as a bridge's, never idle.
        let watch = Process()
        watch.executableURL = URL(fileURLWithPath: Built.nookctl)
        watch.arguments = ["watch", "--json", "--socket", daemon.socket]
        let pipe = Pipe.closedOnExec()
        watch.standardOutput = pipe
        try watch.runAlone()
        defer { if watch.isRunning { watch.terminate() } }
        try eventually("the watcher connected", timeout: 30) { try status(daemon).connections == 2 }
        let half = try daemon.client(timeout: .seconds(60))
        try half.sendRaw(Array(#"{"v":1,"id":1,"op":"sta"#.utf8))
        let idle = try daemon.client(timeout: .seconds(60))

        let told = try #require(try half.readLine(), "told why before the close")
        guard case .failure(_, let error) = try ResponseLine.decode(told) else { throw DaemonFailure("not an error: \(told)") }
        #expect(error.code == .unavailable && error.message.contains("daemon.partial_line_timeout"), "\(error)")
        #expect(try half.readLine() == nil, "then closed")
        #expect(try idle.readLine() == nil, "an idle client is closed later, without a word (its next request fails as a lost connection)")

        // The watcher, idle by design, is still served.
        let id = try nookctl(["enqueue", "--title", "still watched", "--dwell", "0.2"], socket: daemon.socket).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try PipeLines(pipe).next(within: TestBounds.seconds(30)) { $0["id"] == .string(id) } != nil, "the watcher still hears events")
        #expect(watch.isRunning)
        // nookctl's connection is counted gone a moment after it exits, when nookd has seen the hang-up.
        try eventually("the watcher and this status request left") { try status(daemon).connections == 2 }
        #expect(daemon.log.contains("daemon.partial_line_timeout") && daemon.log.contains("daemon.idle_timeout"), "each close is logged")
        #expect(daemon.stop().status == 0)
    }

    @Test func c1_aHalfLineFedOneByteAtATimeStillTimesOutFromItsFirstByte() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[daemon]\npartial_line_timeout = 1\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        let trickle = try daemon.client()
        trickle.readTimeout = .milliseconds(300)
        var told: [UInt8]?
        // A byte every 0.3 s, each well inside the timeout, for up to 100 bytes: the line is
        // never finished, so nookd must close it.
        trickling: for byte in Array(#"{"v":1,"id":1,"op":"status","x":""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: 70) {
            do {
                try trickle.sendRaw([byte])
                told = try trickle.readLine()
                break trickling
            } catch {
                if "\(error)".contains("sent nothing") { continue }
                told = try? trickle.readLine()
                break trickling
            }
        }
        let line = try #require(told, "nookd kept a half line fed one byte at a time open")
        guard case .failure(_, let error) = try ResponseLine.decode(line) else { throw DaemonFailure("not an error: \(line)") }
        #expect(error.code == .unavailable && error.message.contains("daemon.partial_line_timeout"), "\(error)")
        #expect(daemon.stop().status == 0)
    }

    @Test func c1_n1_aReloadThatChangesTheConnectionLimitsSaysNookdMustRestartForThem() throws {
        let scratch = Scratch()
        let path = scratch.file("nook.toml", "[daemon]\nidle_timeout = 300\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", path])
        _ = scratch.file("nook.toml", "[daemon]\nidle_timeout = 30\n")
        kill(daemon.process.processIdentifier, SIGHUP)
        try eventually("the reload's note") { daemon.log.contains("SIGHUP: reloaded") }
        #expect(daemon.log.contains("restart nookd to apply daemon.idle_timeout"), "\(daemon.log.suffix(1000))")
        #expect(daemon.stop().status == 0)
    }

    @Test func c1_oneWatchSheltersOneOtherConnectionOfItsProcessNotACrowdOfIdleOnes() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[daemon]\nidle_timeout = 1\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        // This test's process is the watcher, and opens idle connections beside its watch.
        let watcher = try daemon.client(timeout: .seconds(60))
        _ = try watcher.request(Request(id: .number(1), operation: .watch))
        let idle = try (0..<3).map { _ in try daemon.client(timeout: .seconds(60)) }
        // The bridge's request connection: the most recently active one is kept.
        let companion = try daemon.client(timeout: .seconds(60))
        _ = try companion.request(Request(id: .number(2), operation: .status))
        // Each wait names itself if it runs out (one did once, under ThreadSanitizer, unnamed).
        func step<T>(_ what: String, _ body: () throws -> T) throws -> T {
            do { return try body() } catch { throw ClientError.unreachable("\(what): \(error)") }
        }
        for (index, client) in idle.enumerated() {
            #expect(try step("idle connection \(index)") { try client.readLine() } == nil, "idle connection \(index) beside the watch is closed")
        }
        _ = try step("the companion's second request") { try companion.request(Request(id: .number(3), operation: .status)) }
        let id = try nookctl(["enqueue", "--title", "still watched", "--dwell", "0.2"], socket: daemon.socket).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var heard = false
        while let line = try step("the watch, for \(id)", { try watcher.readLine() }) {
            if String(decoding: line, as: UTF8.self).contains(id) { heard = true; break }
        }
        #expect(heard, "the watch still streams")
        #expect(daemon.stop().status == 0)
    }

    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
                   && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs root, setpriv and python3 to act as two users"))
    func c4_oneUserHoldingStalledConnectionsCannotLockOutRootOrAnotherUser() throws {
        let scratch = Scratch()
        chmod(scratch.path, 0o755)
        // Long timeouts: the stalled clients hold their slots for the whole test.
        let config = scratch.file("nook.toml", """
            [daemon]
            socket_mode = "0666"
            max_connections = 32
            max_connections_per_user = 8
            partial_line_timeout = 600
            idle_timeout = 600
            """)
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        // 40 connections as uid 65534, each with half a request, held open.
        let script = """
            import socket, sys, time
            held = []
            for _ in range(40):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(sys.argv[1])
                try:
                    s.sendall(b'{"v":1,"op":"sta')
                except OSError:
                    pass
                held.append(s)
            print("ready", flush=True)
            time.sleep(600)
            """
        let hog = Process()
        hog.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        hog.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, daemon.socket]
        let output = Pipe.closedOnExec()
        hog.standardOutput = output
        try hog.runAlone()
        defer { if hog.isRunning { kill(hog.processIdentifier, SIGKILL); hog.waitForExit() } }
        let ready = output.fileHandleForReading.availableData
        #expect(String(decoding: ready, as: UTF8.self).contains("ready"))

        try eventually("the hog's share taken", timeout: 30) { daemon.log.contains("daemon.max_connections_per_user (8)") }
        #expect(try status(daemon).connections == 9, "8 of uid 65534, and this status request")
        let root = try nookctl(["status"], socket: daemon.socket)
        #expect(root.status == 0, "root is served: \(root)")
        let other = try run("/usr/bin/setpriv", ["--reuid=1", "--regid=1", "--clear-groups", Built.nookctl, "status", "--socket", daemon.socket])
        #expect(other.status == 0, "another user is served: \(other)")
        #expect(daemon.stop().status == 0)
    }

    @Test func c1_watchersThatNeverReadAreDroppedOnceTheClientsBuffersPassTheBudget() throws {
        let scratch = Scratch()
        let budget = 262_144
        let config = scratch.file("nook.toml", "[daemon]\nmax_buffered_bytes = \(budget)\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        // A `nookctl watch` stopped with SIGSTOP, and watchers that never read at all.
        let stopped = Process()
        stopped.executableURL = URL(fileURLWithPath: Built.nookctl)
        stopped.arguments = ["watch", "--json", "--socket", daemon.socket]
        let printed = Pipe.closedOnExec(), complaint = Pipe.closedOnExec()
        stopped.standardOutput = printed
        stopped.standardError = complaint
        try stopped.runAlone()
        defer { if stopped.isRunning { kill(stopped.processIdentifier, SIGKILL); stopped.waitForExit() } }
        let silent = try (0..<3).map { _ in
            let client = try daemon.client(timeout: .seconds(60))
            try client.send(Request(id: .string("w"), operation: .watch).encoded())
            return client
        }
        try eventually("four watchers", timeout: 30) { try status(daemon).connections == 5 }
        // Connected is not yet subscribed: stopped only once it has printed a probe card's event.
        let seen = PipeLines(printed)
        try eventually("nookctl watch subscribed", timeout: 60) {
            let probe = try nookctl(["enqueue", "--title", "Probe", "--dwell", "0.1", "--key", "probe"], socket: daemon.socket)
            let probeID = JSONValue.string(probe.output.trimmingCharacters(in: .whitespacesAndNewlines))
            return try seen.next(within: TestBounds.seconds(2)) { $0["id"] == probeID } != nil
        }
        ProcessStop.stop(stopped.processIdentifier)
        // Every watcher hears two events with the title per card (enqueued, coalesced).
        #expect(try nookctl(["suspend"], socket: daemon.socket).status == 0)
        try flood(daemon, count: 2000, title: String(repeating: "t", count: 200))

        try eventually("the slowest dropped, named in the log", timeout: 60) { daemon.log.contains("over daemon.max_buffered_bytes (\(budget))") }
        let buffered = try #require(try status(daemon).bufferedBytes, "status says what waits for clients")
        #expect(buffered <= budget, "\(buffered) bytes wait for clients")
        for client in silent {
            // What its socket held, then the end of the stream.
            var lines = 0
            while try client.readLine() != nil { lines += 1 }
            #expect(lines > 0)
        }
        kill(stopped.processIdentifier, SIGCONT)
        let reader = printed.fileHandleForReading
        Thread.detachNewThread { _ = reader.readToEndOfFile() }
        try eventually("nookctl watch ends", timeout: 60) { !stopped.isRunning }
        stopped.waitForExit()
        let said = String(decoding: complaint.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
        #expect(stopped.terminationStatus == ExitCodes.connectionLost && said.contains("nookd closed the watch"), "\(stopped.terminationStatus): \(said)")
        try eventually("every watcher that stopped reading is gone", timeout: 30) { try status(daemon).connections == 1 }
        #expect(daemon.stop().status == 0)
    }

    @Test func u5_aHistoryLargerThanOneAnswerComesInPagesAndNookctlShowsItWhole() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[history]\nmax_entries = 5000\nmax_bytes = 33554432\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        #expect(try nookctl(["suspend"], socket: daemon.socket).status == 0)
        // About 5 MB of entries: more than a client may leave unread (4 MiB).
        try flood(daemon, count: 3401, title: String(repeating: "h", count: 200), subtitle: String(repeating: "s", count: 900))
        try eventually("the entries recorded", timeout: 60) {
            try HistoryAnswer(json: daemon.request(.history(HistoryQuery(limit: 1)))).total == 3400
        }

        // A client that does not page (an older one) gets the newest page and where the rest starts.
        let raw = try daemon.client(timeout: .seconds(60))
        try raw.send(#"{"v":1,"id":1,"op":"history"}"#)
        let line = try #require(try raw.readLine())
        #expect(line.count <= NookProtocol.answerPageBytes + 4096, "\(line.count) bytes in one answer")
        guard case .success(_, let result) = try ResponseLine.decode(line) else { throw DaemonFailure("refused") }
        let first = try HistoryAnswer(json: result)
        #expect(first.total == 3400 && first.entries.last?.number == 3400 && first.next == first.entries.first?.number, "\(first.entries.count), next \(String(describing: first.next))")

        let whole = try nookctl(["history", "--json"], socket: daemon.socket)
        #expect(whole.status == 0, "\(whole.error)")
        let entries = try HistoryAnswer(json: JSONValue.parse(Array(whole.output.utf8))).entries
        #expect(entries.map { Int($0.number) } == Array(1...3400), "every entry once, oldest first")
        let newest = try HistoryAnswer(json: JSONValue.parse(Array(try nookctl(["history", "--limit", "1500", "--json"], socket: daemon.socket).output.utf8)))
        #expect(newest.entries.map { Int($0.number) } == Array(1901...3400))
        let human = try nookctl(["history"], socket: daemon.socket)
        #expect(human.status == 0 && human.output.split(separator: "\n").count >= 3400, "\(human.error)")
        #expect(daemon.stop().status == 0)
    }

    @Test func u4_theHistoryIsBoundedByBytesAndARestartKeepsTheNewestEntriesOfAFileOverTheBound() throws {
        let scratch = Scratch()
        let journal = ["--journal", scratch.path + "/journal"]
        let roomy = scratch.file("roomy.toml", "[history]\nmax_entries = 5000\nmax_bytes = 16777216\n")
        var daemon = try DaemonProcess(scratch: scratch, arguments: journal + ["--config", roomy])
        #expect(try nookctl(["suspend"], socket: daemon.socket).status == 0)
        try flood(daemon, count: 1601, title: String(repeating: "h", count: 200), subtitle: String(repeating: "s", count: 900))
        // The last one pending ends too, so that nothing is restored to end after the restart.
        #expect(try nookctl(["cancel-all", "flood"], socket: daemon.socket).status == 0)
        try eventually("the entries recorded", timeout: 60) {
            try HistoryAnswer(json: daemon.request(.history(HistoryQuery(limit: 1)))).total == 1601
        }
        #expect(daemon.stop().status == 0)
        let file = scratch.path + "/history"
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        #expect(size > 3 * 262_144 + (1 << 20), "more than the small bound reads: \(size)")

        let bound = 262_144
        let small = scratch.file("small.toml", "[history]\nmax_entries = 5000\nmax_bytes = \(bound)\n")
        daemon = try DaemonProcess(scratch: scratch, arguments: journal + ["--config", small])
        func kept() throws -> [HistoryEntry] {
            try HistoryAnswer(json: JSONValue.parse(Array(try nookctl(["history", "--json"], socket: daemon.socket).output.utf8))).entries
        }
        var entries = try kept()
        #expect(entries.last?.number == 1601, "the newest kept")
        #expect(entries.map { Int($0.number) } == Array((1602 - entries.count)...1601), "the newest, none skipped")
        let lineBytes = 1100 + 100
        #expect(entries.count >= 100 && entries.count * lineBytes <= bound, "\(entries.count) entries within \(bound) bytes")
        #expect(daemon.log.contains("more than history.max_bytes"), "says so")
        try eventually("the file rewritten within the bound", timeout: 30) {
            ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? .max) <= 2 * bound
        }

        // Running on, it stays within the bound and keeps the newest.
        #expect(try nookctl(["suspend"], socket: daemon.socket).status == 0)
        try flood(daemon, count: 300, title: String(repeating: "n", count: 200), subtitle: String(repeating: "s", count: 900))
        try eventually("the newest recorded", timeout: 60) { try kept().contains { $0.activity.title.hasPrefix("298 n") } }
        entries = try kept()
        #expect(entries.count >= 100 && entries.count * lineBytes <= bound, "\(entries.count) entries")
        #expect(daemon.stop().status == 0)
    }
}
