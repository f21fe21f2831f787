import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// README.md's "Four ways in": each example block is read out of the README and its command lines
/// run as written (only the binary's path, the socket, the bus, the broker's port or the
/// LCDproc port are the test's own) against the real peers, and each does what the README says
/// beside it.
@Suite("README examples run as written", .serialized, .ownThreads)
struct ReadmeExamplesTests {
    static func all(_ daemon: DaemonProcess) throws -> [NookActivity] {
        try daemon.activities().flatMap { ($0.current.map { [$0] } ?? []) + $0.pending }
    }

    static func isBlocker(_ activity: NookActivity) -> Bool {
        if case .blocker = activity.presentation { true } else { false }
    }

    /// How each card of the history ended: title → ending.
    static func endings(_ daemon: DaemonProcess) throws -> [String: String] {
        let answer = try HistoryAnswer(json: daemon.request(.history(HistoryQuery())))
        return Dictionary(answer.entries.map { ($0.activity.title, $0.ending) }) { $1 }
    }

    @Test func c2_theReadmesNookctlExamplesShowTheCardEndTheWaitWithADismissalAndWatchInJSON() throws {
        let example = try ReadmeExample(after: "**From a script: `nookctl`**")
        let scratch = Scratch()
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--journal", scratch.path + "/journal"])
        let shell = try ReadmeShell(scratch: daemon.scratch, links: ["nookctl": Built.nookctl], environment: ["NOOK_SOCKET": daemon.socket])
        var waiting: (process: Process, output: String, title: String)?
        var watching: (process: Process, output: String)?
        defer {
            for process in [waiting?.process, watching?.process].compactMap({ $0 }) { stopProcess(process) }
        }
        for line in example.lines {
            let words = ReadmeExample.words(line)
            try #require(words.count > 1 && words[0] == "nookctl", "not a nookctl command: \(line)")
            if words.contains("--wait") {
                let title = try #require(ReadmeExample.value(of: "--title", in: line))
                let output = daemon.scratch.path + "/wait.out"
                let process = try shell.start(line, outputPath: output)
                waiting = (process, output, title)
                // A blocker takes the glass once the card before it has had its turn.
                try eventually("'\(title)' on the glass", timeout: 30) {
                    if !process.isRunning { return true }
                    return try daemon.activities().first?.current?.title == title
                }
                #expect(process.isRunning, "\(line) ended at once: \((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
                let shown = try #require(try daemon.activities().first?.current)
                #expect(Self.isBlocker(shown), "\(line): \(shown)")
            } else if words[1] == "watch" {
                let output = daemon.scratch.path + "/watch.out"
                // exec: the test stops the watch itself, not a shell around it.
                let process = try shell.start("exec " + line, outputPath: output)
                watching = (process, output)
                // A card every half second until one is seen: the watch may not be connected yet.
                var polls = 0
                try eventually("a JSON event line from '\(line)'") {
                    if !process.isRunning { return true }
                    if polls % 25 == 0 { _ = try nookctl(["enqueue", "--title", "Watched"], socket: daemon.socket) }
                    polls += 1
                    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                    return text.split(separator: "\n").contains { (try? JSONValue.parse(Array($0.utf8)))?["event"] != nil }
                }
                #expect(process.isRunning, "\(line) ended: \((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
            } else {
                let result = try shell.run(line)
                #expect(result.status == 0, "\(line) exited \(result.status): \(result.output)")
                switch words[1] {
                case "enqueue":
                    let title = try #require(ReadmeExample.value(of: "--title", in: line))
                    // At nookd, or already ended there: a timed card's 5 s may pass before a loaded machine lists it.
                    try eventually("'\(title)' at nookd") {
                        try Self.all(daemon).contains { $0.title == title } || Self.endings(daemon)[title] != nil
                    }
                case "dismiss":
                    let waited = try #require(waiting, "the README dismisses before anything waits")
                    try eventually("'\(waited.title)' --wait to end") { !waited.process.isRunning }
                    let said = try String(contentsOfFile: waited.output, encoding: .utf8)
                    #expect(said.contains("ended with 10"), "the wait did not end as dismissed: \(said)")
                    #expect(try Self.endings(daemon)[waited.title] == "dismissed")
                case "status":
                    #expect(!result.output.isEmpty)
                default:
                    break
                }
            }
        }
        #expect(waiting != nil, "the block has no --wait example")
        #expect(watching != nil, "the block has no watch example")
    }

    /// notify-send's words after its options: the summary, then the body.
    static func notifySendArguments(_ words: [String]) -> [String] {
        let withValue: Set = ["-u", "-i", "-t", "-a", "-c", "-h", "-r", "-A", "--urgency", "--icon", "--expire-time", "--app-name", "--category", "--hint"]
        var found: [String] = []
        var index = 1
        while index < words.count {
            if withValue.contains(words[index]) { index += 2; continue }
            if !words[index].hasPrefix("-") { found.append(words[index]) }
            index += 1
        }
        return found
    }

    @Test(.enabled(if: NotifyTools.available, NotifyTools.skipReason))
    func e1_e2_theReadmesNotifySendExamplesReachNookdAndTheCriticalOneIsAHighPriorityBlocker() throws {
        let example = try ReadmeExample(after: "**From any program: `notify-send`**")
        let setup = try NotifyBridgeTests.Setup()
        // Held back, each card waits in the list however slowly a loaded machine gets to read it.
        try setup.daemon.request(.suspend(module: nil))
        let shell = try ReadmeShell(scratch: setup.scratch, environment: ["DBUS_SESSION_BUS_ADDRESS": setup.bus.address])
        var sawCritical = false
        for line in example.lines {
            let words = ReadmeExample.words(line)
            try #require(words.first == "notify-send", "not a notify-send command: \(line)")
            let result = try shell.run(line)
            #expect(result.status == 0, "\(line) exited \(result.status): \(result.output)")
            let texts = Self.notifySendArguments(words)
            let title = try #require(texts.first, "no summary in \(line)")
            var found: NookActivity?
            try eventually("'\(title)' at nookd") {
                found = try setup.allActivities().first { $0.title == title }
                return found != nil
            }
            let card = try #require(found)
            if texts.count > 1 { #expect(card.subtitle == texts[1]) }
            if ReadmeExample.value(of: "-u", in: line) == "critical" {
                sawCritical = true
                #expect(card.priority == .high && Self.isBlocker(card), "\(line): \(card)")
            }
        }
        #expect(sawCritical, "the block has no critical notification")
    }

    @Test(.enabled(if: MQTTTools.available, MQTTTools.skipReason))
    func e4_theReadmesMQTTExamplesShowPlainTextAsTheTitleAndDismissOnTheCommandTopicEndsTheCard() throws {
        let example = try ReadmeExample(after: "**From the network: MQTT and Home Assistant**")
        let scratch = Scratch()
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--journal", scratch.path + "/journal"])
        let broker = try Broker(scratch: scratch)
        let bridge = try MQTTBridgeProcess(broker: broker, socket: daemon.socket, scratch: scratch, device: "kitchen")
        let publish = try #require(MQTTTools.path("mosquitto_pub"))
        let shell = try ReadmeShell(scratch: scratch, wrappers: ["mosquitto_pub": "exec \(publish) -h 127.0.0.1 -p \(broker.port) \"$@\""],
                                    environment: [:])
        var sawPlainText = false, sawDismiss = false, dismissed = false
        var titles: Set<String> = []
        func logs() -> String { "nook-mqtt:\n\(bridge.log.suffix(4000))\nnookd:\n\(daemon.log.suffix(4000))" }
        // The block's cards are timed (2.4 s): on a loaded machine they can end on their own before
        // the dismiss arrives, which then finds the glass empty, or a card already sliding out
        // after its dwell (the bridge logs either). The block is run again then; what is judged
        // is what the dismiss did when a card was there to be dismissed.
        for _ in 1...3 where !dismissed {
            for line in example.lines {
                let words = ReadmeExample.words(line)
                try #require(words.first == "mosquitto_pub", "not a mosquitto_pub command: \(line)")
                let topic = try #require(ReadmeExample.value(of: "-t", in: line))
                let message = try #require(ReadmeExample.value(of: "-m", in: line))
                func missed() -> Int {
                    bridge.log.components(separatedBy: "nothing is on the glass to dismiss").count + bridge.log.components(separatedBy: "\"alreadyEnding\"").count
                }
                let missedBefore = missed()
                let result = try shell.run(line)
                #expect(result.status == 0, "\(line) exited \(result.status): \(result.output)\nnook-mqtt: \(bridge.log)")
                if topic.hasSuffix("/activity") {
                    let json = try? JSONValue.parse(Array(message.utf8))
                    let title = json?["title"]?.text ?? message
                    sawPlainText = sawPlainText || json?["title"] == nil
                    titles.insert(title)
                    // Queued, on the glass or already ended: a loaded machine may poll past a card's turn.
                    try saying(logs()) {
                        try eventually("'\(title)' at nookd", timeout: 30) {
                            try Self.all(daemon).contains { $0.title == title } || Self.endings(daemon)[title] != nil
                        }
                    }
                    if json?["priority"]?.text == "high" {
                        let seen = try Self.all(daemon).first { $0.title == title }
                            ?? HistoryAnswer(json: daemon.request(.history(HistoryQuery()))).entries.last { $0.activity.title == title }?.activity
                        #expect(seen?.priority == .high)
                    }
                } else if topic.hasSuffix("/command"), message == "dismiss" {
                    sawDismiss = true
                    // Whichever card held the glass when the command arrived (a high-priority one may
                    // just have taken it) ends as dismissed.
                    try saying(logs()) {
                        try eventually("a card of the block dismissed, or the bridge saying the glass was empty or its card already leaving", timeout: 30) {
                            dismissed = try Self.endings(daemon).contains { titles.contains($0.key) && $0.value == "dismissed" }
                            return dismissed || missed() > missedBefore
                        }
                    }
                }
            }
        }
        #expect(dismissed, "no run of the block had a card on the glass when its dismiss came:\n\(logs())")
        #expect(sawPlainText, "the block has no plain-text activity")
        #expect(sawDismiss, "the block has no dismiss command")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/lcdproc"), "needs lcdproc: run Hardware/dev/install-deps"))
    func e8_theReadmesLCDprocExampleShowsTheClientsScreensOnTheGlance() throws {
        let example = try ReadmeExample(after: "**From LCDproc clients**")
        let daemon = try DaemonProcess()
        let serverLine = try example.line(containing: "nook-lcdproc")
        let clientLine = try example.line(containing: "lcdproc -s")
        let readmePort = try #require(ReadmeExample.value(of: "--port", in: serverLine))
        // The server's words but its `&`, on a port the kernel chooses (none another test can
        // take first) and nookd's socket.
        let serverWords = ReadmeExample.words(serverLine).filter { $0 != "&" }.map { $0 == readmePort ? "0" : $0 }
        try #require(serverWords.first == "nook-lcdproc", "not nook-lcdproc: \(serverLine)")
        let server = Process()
        let serverLog = daemon.scratch.path + "/nook-lcdproc.log"
        _ = FileManager.default.createFile(atPath: serverLog, contents: nil)
        server.executableURL = URL(fileURLWithPath: Built.directory + "/nook-lcdproc")
        server.arguments = Array(serverWords.dropFirst()) + ["--socket", daemon.socket, "--log-level", "debug"]
        let output = Pipe.closedOnExec()
        server.standardOutput = output
        server.standardError = FileHandle(forWritingAtPath: serverLog)
        try server.runAlone()
        defer { stopProcess(server) }
        var log: String { (try? String(contentsOfFile: serverLog, encoding: .utf8)) ?? "" }
        // Its first line says where it listens, once it does; the pipe ends if it exits first.
        // However long a loaded machine takes to start it, the line or the end comes.
        var said = ""
        while !said.contains("\n") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            said += String(decoding: data, as: UTF8.self)
        }
        guard said.hasPrefix("listening on "), let port = said.split(separator: "\n").first?.split(separator: ":").last.map(String.init),
              UInt16(port) != nil else {
            throw DaemonFailure("\(serverLine) did not say where it listens ('\(said)', exited: \(!server.isRunning)): \(log)")
        }
        let clientWords = ReadmeExample.words(clientLine).map { $0 == readmePort ? port : $0 }
        try #require(clientWords.first == "lcdproc", "not lcdproc: \(clientLine)")
        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/lcdproc")
        client.arguments = Array(clientWords.dropFirst())
        client.standardOutput = FileHandle.nullDevice
        client.standardError = FileHandle.nullDevice
        try client.runAlone()
        defer { stopProcess(client) }
        // The screens the README names (`C M L`) rotate on the glance.
        let screens = clientWords.drop { $0 != "-f" }.dropFirst()
        try #require(!screens.isEmpty, "no screens named in \(clientLine)")
        for screen in screens {
            try eventually("screen \(screen) on the glance", timeout: 30) {
                if !client.isRunning { throw DaemonFailure("\(clientLine) exited (\(client.terminationStatus)): \(log)") }
                return log.contains("showing screen \(screen) of client ")
            }
        }
        let size = ReadmeExample.value(of: "--size", in: serverLine) ?? "40x4"
        let status = try StatusAnswer(json: daemon.request(.status))
        #expect(status.home == "glance \(size)")
        #expect(!log.contains("huh?"), "lcdproc got an error: \(log)")
    }
}
