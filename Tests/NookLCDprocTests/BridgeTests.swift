import Foundation
import NookProtocol
import NookTestTraits
import NookTestSupport
import Testing

/// The repository and the built executables (BuiltProducts says which build).
enum Built {
    static let root = BuiltProducts.repository
    static let directory = BuiltProducts.directory
}

/// A scratch directory with nookd on the mock display and nook-lcdproc on a port the kernel
/// chose; both are killed when this is released.
final class Bridge {
    let directory: String
    let socket: String
    var nookd = Process()
    let bridge = Process()
    let bridgeLog: String
    private(set) var port: UInt16 = 0
    /// nookd's config file, if the test gave one.
    private(set) var nookdConfig: String?

    /// `descriptorLimit`: nook-lcdproc runs under `prlimit --nofile`, its RLIMIT_NOFILE.
    /// nookd's `--display`: the mock panel unless a test drives mock LEDs (`led-mock`).
    private var nookdDisplay = "mock"

    init(bridgeArguments: [String] = [], withNookd: Bool = true, nookdConfig text: String? = nil, descriptorLimit: Int? = nil,
         nookdDisplay: String = "mock") throws {
        self.nookdDisplay = nookdDisplay
        directory = NSTemporaryDirectory() + "nook-lcdproc-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        socket = directory + "/nookd.sock"
        bridgeLog = directory + "/bridge.log"
        if let text {
            nookdConfig = directory + "/nook.toml"
            try text.write(toFile: nookdConfig!, atomically: true, encoding: .utf8)
        }
        if withNookd { try startNookd() }
        _ = FileManager.default.createFile(atPath: bridgeLog, contents: nil)
        let output = Pipe.closedOnExec()
        bridge.executableURL = URL(fileURLWithPath: Built.directory + "/nook-lcdproc")
        bridge.arguments = ["--socket", socket, "--port", "0", "--log-level", "debug"] + bridgeArguments
        if let descriptorLimit {
            // prlimit sets its own limit and execs the program: the pid stays the bridge's.
            bridge.arguments = ["--nofile=\(descriptorLimit)", "--", Built.directory + "/nook-lcdproc"] + (bridge.arguments ?? [])
            bridge.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        }
        bridge.standardOutput = output
        bridge.standardError = FileHandle(forWritingAtPath: bridgeLog)
        try bridge.runAlone()
        // The first line says where it listens.
        let text = output.firstLine(until: Date().addingTimeInterval(TestBounds.seconds(30)))
        guard let portText = text.split(separator: ":").last?.split(separator: "\n").first, let port = UInt16(portText) else {
            throw TestFailure("nook-lcdproc did not say where it listens: '\(text)' \(log)")
        }
        self.port = port
    }

    /// Starts (or starts again) nookd on the mock display and waits until it listens.
    func startNookd() throws {
        if nookd.isRunning { kill(nookd.processIdentifier, SIGKILL); nookd.waitForExit() }
        nookd = Process()
        nookd.executableURL = URL(fileURLWithPath: Built.directory + "/nookd")
        nookd.arguments = ["--socket", socket, "--display", nookdDisplay, "--journal", "none", "--log-level", "warning"] + (nookdConfig.map { ["--config", $0] } ?? [])
        nookd.standardError = FileHandle.nullDevice
        try nookd.runAlone()
        let deadline = Date().addingTimeInterval(TestBounds.seconds(60))
        while (try? NookClient(path: socket)) == nil {
            guard Date() < deadline, nookd.isRunning else { throw TestFailure("nookd did not start") }
            usleep(20_000)
        }
    }

    var log: String { (try? String(contentsOfFile: bridgeLog, encoding: .utf8)) ?? "" }

    func waitForLog(_ needle: String, timeout: Double = 30) -> Bool {
        Waiting.until(seconds: timeout, every: .milliseconds(50)) { log.contains(needle) }
    }

    func status() throws -> StatusAnswer {
        try NookClient(path: socket).request(Request(id: .number(1), operation: .status), as: StatusAnswer.self).0
    }

    deinit {
        for process in [bridge, nookd] where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitForExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// A client program run for a test, killed when released.
final class Child {
    let process = Process()
    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runAlone()
    }
    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitForExit() }
    }
}

/// E8 end to end: nookd on the mock display, nook-lcdproc, and Debian's real LCDproc clients.
@Suite("E8 nook-lcdproc end to end", .serialized, .ownThreads)
struct BridgeTests {
    @Test func e8_theServerAnswersTheScriptAsLCDdDoes() throws {
        // The transcript again, through nook-lcdproc's own socket and framing this time.
        let script = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TranscriptTests.script)))
        let reference = try LCDdReference()
        let lcdd = try TCPConnection(port: reference.port)
        try lcdd.send(script)
        let expected = TranscriptTests.answers(lcdd.readUntilQuiet())
        let bridge = try Bridge(withNookd: false)
        let ours = try TCPConnection(port: bridge.port)
        try ours.send(script)
        let answers = TranscriptTests.answers(ours.readUntilQuiet())
        #expect(answers == expected)
    }

    @Test func e8_lcdprocShowsCPUMemoryAndLoadOnTheGlance() throws {
        let bridge = try Bridge()
        let config = bridge.directory + "/lcdproc.conf"
        try """
            [lcdproc]
            Server=127.0.0.1
            Port=\(bridge.port)
            ReportToSyslog=false
            Foreground=true
            [CPU]
            Active=true
            [Memory]
            Active=true
            [Load]
            Active=true
            [Iface]
            Active=false
            [TimeDate]
            Active=false

            """.write(toFile: config, atomically: true, encoding: .utf8)
        let client = try Child(["/usr/bin/lcdproc", "-c", config, "-s", "127.0.0.1", "-p", "\(bridge.port)", "-f"])
        // lcdproc's screens rotate every 4 s (LCDd's default duration): C, then M, then L.
        for screen in ["C", "M", "L"] {
            #expect(bridge.waitForLog("showing screen \(screen) of client 1"), "screen \(screen) never shown: \(bridge.log)")
        }
        #expect(try bridge.status().home == "glance 40x4")
        #expect(!bridge.log.contains("huh?"), "lcdproc got an error: \(bridge.log)")
        // The client goes: its screens go, and nookd gets its own home back.
        kill(client.process.processIdentifier, SIGKILL)
        let deadline = Date().addingTimeInterval(TestBounds.seconds(20))
        while try bridge.status().home != "clock", Date() < deadline { usleep(50_000) }
        #expect(try bridge.status().home == "clock")
    }

    @Test func e8_lcdexecBuildsItsMenuWithoutAnError() throws {
        let bridge = try Bridge()
        let config = bridge.directory + "/lcdexec.conf"
        try """
            [lcdexec]
            Address=127.0.0.1
            Port=\(bridge.port)
            ReportToSyslog=false
            Foreground=true
            [MainMenu]
            Entry=Hello
            Entry=More
            [Hello]
            DisplayName="Say hello"
            Exec="echo hello"
            [More]
            DisplayName="More"
            Entry=Date
            [Date]
            DisplayName="Date"
            Exec="date"

            """.write(toFile: config, atomically: true, encoding: .utf8)
        let client = try Child(["/usr/bin/lcdexec", "-c", config, "-a", "127.0.0.1", "-p", "\(bridge.port)", "-f"])
        #expect(bridge.waitForLog("LCDproc client 1 connected"))
        // lcdexec sends hello, its name and five menu items; give it a moment to be answered.
        usleep(1_500_000)
        #expect(client.process.isRunning, "lcdexec exited: \(bridge.log)")
        #expect(!bridge.log.contains("huh?"), "lcdexec got an error: \(bridge.log)")
    }

    @Test func e8_theGlanceComesBackAfterNookdRestarts() throws {
        let bridge = try Bridge()
        let client = try TCPConnection(port: bridge.port)
        try client.send("hello\nscreen_add s\nwidget_add s t title\nwidget_set s t {Still here}\n")
        // Four answers and, at the next frame, `listen s`.
        #expect(client.readLines(5).filter { $0 == "success" || $0 == "listen s" }.count == 4)
        func waitForHome(_ home: String) throws -> Bool {
            Waiting.until(seconds: 30, every: .milliseconds(50)) { (try? bridge.status())?.home == home }
        }
        #expect(try waitForHome("glance 40x4"))
        // nookd goes away and a fresh one (home: the clock) takes its place; the client sends
        // nothing new, and the bridge still puts its glance back.
        kill(bridge.nookd.processIdentifier, SIGKILL)
        bridge.nookd.waitForExit()
        try client.send("widget_set s t {Still here, again}\n")
        #expect(client.readLines(1) == ["success"])
        try bridge.startNookd()
        #expect(try waitForHome("glance 40x4"), "\(bridge.log)")
        #expect(bridge.log.contains("nookd is reachable again"), "\(bridge.log)")
    }

    @Test func e8_alertScreensBecomeHighCardsThroughTheQueue() throws {
        let bridge = try Bridge()
        let nook = try NookClient(path: bridge.socket)
        // Held back, the card stays in the list however long a loaded machine takes to list it.
        _ = try nook.request(Request(id: .number(1), operation: .suspend(module: nil)))
        let client = try TCPConnection(port: bridge.port)
        try client.send("hello\nclient_set -name door\nscreen_add d\nwidget_add d t title\nwidget_set d t {Doorbell}\nwidget_add d s string\nwidget_set d s 1 2 {Front door}\nscreen_set d -priority alert\n")
        // Eight answers (the frame's `listen d` may come among them).
        let answers = client.readAnswers(8)
        #expect(answers.count == 8 && answers.dropFirst().allSatisfy { $0 == "success" }, "\(answers)")
        let deadline = Date().addingTimeInterval(TestBounds.seconds(20))
        var titles: [String] = []
        while titles.isEmpty, Date() < deadline {
            let list = try nook.request(Request(id: .number(1), operation: .list(module: nil)), as: ListAnswer.self).0
            titles = list.modules.flatMap { ([$0.current].compactMap { $0 } + $0.pending).map { "\($0.title)|\($0.subtitle ?? "")|\($0.priority)" } }
            usleep(50_000)
        }
        #expect(titles == ["Doorbell|Front door|high"])
    }

    /// LCDproc answers `success` when the screen is set, before the card reaches nookd: what
    /// nookd says an LED matrix will not show of it is in the bridge's log (L3).
    @Test func e8_l3_whatAnLEDMatrixWillNotShowOfAnAlertIsLogged() throws {
        let bridge = try Bridge(nookdConfig: "[led]\ngeometry = \"32x8\"\n", nookdDisplay: "led-mock")
        let client = try TCPConnection(port: bridge.port)
        try client.send("hello\nclient_set -name door\nscreen_add d\nwidget_add d t title\nwidget_set d t {門}\nscreen_set d -priority alert\n")
        #expect(client.readAnswers(6).dropFirst().allSatisfy { $0 == "success" })
        #expect(bridge.waitForLog("the card \"門\": the LED font cannot draw '門' in the title; it shows as '?'"), "\(bridge.log)")
    }
}

/// E8 keys end to end: a press through nookd's `press` operation (the buttons' stand-in) reaches
/// the LCDproc client that reserved the key, over nookd's `inputs` stream.
@Suite("E8 nook-lcdproc keys end to end", .serialized, .ownThreads)
struct BridgeKeyTests {
    func press(_ input: NookInputName, _ bridge: Bridge) throws {
        _ = try NookClient(path: bridge.socket).request(Request(id: .number(1), operation: .press(input)), as: PressAnswer.self)
    }

    @Test func e8_nooksButtonsReachTheClientThatReservedTheirKeys() throws {
        // Keys of their own: the server menu holds Enter and Escape (as LCDd holds its menu's keys).
        let bridge = try Bridge(bridgeArguments: ["--key", "open=Select", "--key", "dismiss=Menu"], nookdConfig: "[debug]\npress_inputs = true\n")
        #expect(bridge.waitForLog("following nookd's inputs"), "\(bridge.log)")
        let holder = try TCPConnection(port: bridge.port)
        try holder.send("hello\nclient_add_key -exclusively Select Menu\n")
        #expect(holder.readLines(2).last == "success")
        // A shared reservation of a key another client holds exclusively is refused, as by LCDd.
        let other = try TCPConnection(port: bridge.port)
        try other.send("hello\nclient_add_key Select\n")
        #expect(Array(other.readLines(3).dropFirst()) == ["huh? Could not reserve key \"Select\"", "success"])
        try press(.open, bridge)
        #expect(holder.readLines(1) == ["key Select"])
        try press(.dismiss, bridge)
        #expect(holder.readLines(1) == ["key Menu"])
        // Released, the key goes nowhere; the other client never got one.
        try holder.send("client_del_key Select\n")
        #expect(holder.readLines(1) == ["success"])
        try press(.open, bridge)
        #expect(bridge.waitForLog("key Select: no client reserved it"), "\(bridge.log)")
        #expect(other.readUntilQuiet(quiet: 0.5).isEmpty)
    }

    @Test func e8_keysComeBackAfterNookdRestarts() throws {
        let bridge = try Bridge(bridgeArguments: ["--key", "dismiss=Back"], nookdConfig: "[debug]\npress_inputs = true\n")
        #expect(bridge.waitForLog("following nookd's inputs"), "\(bridge.log)")
        let client = try TCPConnection(port: bridge.port)
        try client.send("hello\nclient_add_key -exclusively Back\n")
        #expect(client.readLines(2).last == "success")
        kill(bridge.nookd.processIdentifier, SIGKILL)
        bridge.nookd.waitForExit()
        #expect(bridge.waitForLog("cannot follow nookd's inputs"), "\(bridge.log)")
        try bridge.startNookd()
        #expect(bridge.waitForLog("following nookd's inputs again"), "\(bridge.log)")
        try press(.dismiss, bridge)
        #expect(client.readLines(1) == ["key Back"])
    }
}

/// E8 `[lcdproc]` end to end: nook-lcdproc takes its settings from nook.toml, a flag wins
/// over its key, and a bad key stops it with the key named.
@Suite("E8 nook-lcdproc config end to end", .serialized, .ownThreads)
struct BridgeConfigTests {
    @Test func e8_theLcdprocTableSetsTheServerAndFlagsOverrideIt() throws {
        let directory = NSTemporaryDirectory() + "nook-lcdproc-config-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/nook.toml"
        // nookd's own tables beside it are none of nook-lcdproc's business; port 1 loses to --port 0.
        try "[display]\nrotation = 180\n[lcdproc]\nport = 1\nsize = \"20x2\"\ncell = \"6x10\"\n[lcdproc.keys]\nopen = \"Up\"\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let bridge = try Bridge(bridgeArguments: ["--config", config, "--cell", "5x8"], withNookd: false)
        let client = try TCPConnection(port: bridge.port)
        try client.send("hello\n")
        #expect(client.readLines(1) == ["connect LCDproc 0.5.9 protocol 0.3 lcd wid 20 hgt 2 cellwid 5 cellhgt 8"])
        #expect(bridge.log.contains("open→Up"), "\(bridge.log)")
    }

    @Test func e8_aBadLcdprocKeyStopsTheServerNamingIt() throws {
        let directory = NSTemporaryDirectory() + "nook-lcdproc-bad-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/nook.toml"
        try "[lcdproc]\nsize = \"40x4\"\nbind = \"10.1.2.3\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Built.directory + "/nook-lcdproc")
        process.arguments = ["--config", config, "--port", "0"]
        let errors = Pipe.closedOnExec()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.runAlone()
        let text = String(decoding: errors.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
        process.waitForExit()
        #expect(process.terminationStatus != 0)
        #expect(text.contains("nook.toml:3") && text.contains("lcdproc.bind") && text.contains("allow_network"), "\(text)")
    }

    @Test func e8_allowNetworkOnTheCommandLineAllowsTheFilesNonLoopbackBind() throws {
        let directory = NSTemporaryDirectory() + "nook-lcdproc-allow-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/nook.toml"
        try "[lcdproc]\nbind = \"0.0.0.0\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let bridge = try Bridge(bridgeArguments: ["--config", config, "--allow-network"], withNookd: false)
        #expect(bridge.log.contains("0.0.0.0") || bridge.port > 0, "\(bridge.log)")
        let client = try TCPConnection(port: bridge.port)
        try client.send("hello\n")
        #expect(client.readLines(1).first?.hasPrefix("connect LCDproc") == true)
    }
}
