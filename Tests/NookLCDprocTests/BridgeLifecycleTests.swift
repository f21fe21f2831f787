import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// E8 end to end: nookd on the mock display, nook-lcdproc, and clients over real TCP: what
/// the glance and the cards do when nookd restarts, when a screen is raised before its
/// widgets, and when far too many clients connect; Debian's `lcdproc` BigClock screen.
@Suite("E8 nook-lcdproc lifecycle end to end", .serialized, .ownThreads)
struct BridgeLifecycleTests {
    func waitForHome(_ bridge: Bridge, _ home: String, seconds: Double = 30) -> Bool {
        Waiting.until(seconds: seconds, every: .milliseconds(50)) { (try? bridge.status())?.home == home }
    }

    /// nook-lcdproc(8): exit 0 when stopped by a signal, after the server has let its clients
    /// go (not 143, dying of SIGTERM with its connections cut).
    @Test func e8_aStopSignalEndsTheServerWithExitZeroAfterItClosesItsClients() throws {
        for signal in [SIGTERM, SIGINT] {
            let bridge = try Bridge()
            let client = try TCPConnection(port: bridge.port)
            try client.send("hello\n")
            #expect(client.readLines(1).first?.hasPrefix("connect") == true)
            kill(bridge.bridge.processIdentifier, signal)
            bridge.bridge.waitForExit(seconds: TestBounds.seconds(30))
            #expect(bridge.bridge.terminationReason == .exit && bridge.bridge.terminationStatus == 0,
                    "signal \(signal): \(bridge.bridge.terminationReason == .exit ? "exit" : "killed") \(bridge.bridge.terminationStatus): \(bridge.log)")
            #expect(bridge.log.contains("stopping on signal \(signal)") && bridge.log.contains("stopped"), "\(bridge.log)")
        }
    }

    /// A stop signal while nook-lcdproc sets up (it has read its flags and logged its keys, and
    /// not yet said where it listens) is held and stops it once it runs: exit 0, not death.
    @Test func e8_aStopSignalWhileItStartsStopsItOnceItRuns() throws {
        for round in 1...6 {
            let directory = NSTemporaryDirectory() + "nook-lcdproc-early-\(getpid())-\(round)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let log = directory + "/log"
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            let bridge = Process()
            bridge.executableURL = URL(fileURLWithPath: Built.directory + "/nook-lcdproc")
            bridge.arguments = ["--socket", directory + "/none.sock", "--port", "0", "--log-level", "debug"]
            bridge.standardOutput = FileHandle.nullDevice
            bridge.standardError = FileHandle(forWritingAtPath: log)
            try bridge.runAlone()
            func text() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
            let deadline = Date().addingTimeInterval(TestBounds.seconds(30))
            while !text().contains("Nook's inputs as keys"), bridge.isRunning, Date() < deadline { usleep(100) }
            kill(bridge.processIdentifier, SIGTERM)
            bridge.waitForExit(seconds: TestBounds.seconds(30))
            #expect(bridge.terminationReason == .exit && bridge.terminationStatus == 0,
                    "round \(round): \(bridge.terminationReason == .exit ? "exit" : "killed") \(bridge.terminationStatus): \(text())")
            if bridge.terminationReason != .exit { return }
        }
    }

    @Test func e8_theGlanceComesBackAfterNookdRestartsThoughNothingOnItChanged() throws {
        let bridge = try Bridge()
        let client = try TCPConnection(port: bridge.port)
        try client.send("hello\nscreen_add s\nwidget_add s t title\nwidget_set s t {Still here}\n")
        #expect(client.readLines(5).filter { $0 == "success" || $0 == "listen s" }.count == 4)
        #expect(waitForHome(bridge, "glance 40x4"))
        usleep(500_000)  // the glance of the first frame, if still on its way, is answered
        // nookd goes away and a fresh one (home: the clock) takes its place; the client says
        // nothing more, and the bridge puts its glance back by itself.
        kill(bridge.nookd.processIdentifier, SIGKILL)
        bridge.nookd.waitForExit()
        #expect(bridge.waitForLog("lost nookd: its connection closed"), "\(bridge.log)")
        try bridge.startNookd()
        #expect(waitForHome(bridge, "glance 40x4", seconds: 20), "\(bridge.log)")
        #expect(bridge.log.contains("nookd is reachable again"), "\(bridge.log)")
    }

    @Test func e8_aScreenRaisedBeforeItsWidgetsBecomesACardWithTheirText() throws {
        let bridge = try Bridge()
        let nook = try NookClient(path: bridge.socket)
        // Held back, every card the bridge makes stays in the list however loaded the machine.
        _ = try nook.request(Request(id: .number(1), operation: .suspend(module: nil)))
        let client = try TCPConnection(port: bridge.port)
        try client.send("hello\nclient_set -name door\nscreen_add d\nscreen_set d -priority foreground\n")
        // connect and three answers (`listen d` may come among them).
        #expect(client.readAnswers(4).filter { $0 == "success" }.count == 3)
        usleep(500_000)  // four frames and more: the screen sits at foreground with nothing on it
        try client.send("widget_add d t title\nwidget_set d t {Doorbell}\nwidget_add d s string\nwidget_set d s 1 2 {Front door}\n")
        #expect(client.readAnswers(4).filter { $0 == "success" }.count == 4)
        // Until the card with the widgets' text is at nookd: a card of the bare screen id, made
        // at a frame before the widgets came, was sent before it and is held there too.
        let deadline = Date().addingTimeInterval(TestBounds.seconds(20))
        var titles: [String] = []
        while !titles.contains("Doorbell|Front door"), Date() < deadline {
            let list = try nook.request(Request(id: .number(1), operation: .list(module: nil)), as: ListAnswer.self).0
            titles = list.modules.flatMap { ([$0.current].compactMap { $0 } + $0.pending).map { "\($0.title)|\($0.subtitle ?? "")" } }
            usleep(50_000)
        }
        #expect(titles == ["Doorbell|Front door"], "\(bridge.log)")
    }

    @Test func e8_aFloodOfRefusedConnectionsIsOneWarningAndThenItsCount() throws {
        let bridge = try Bridge(bridgeArguments: ["--max-clients", "1"], withNookd: false)
        let first = try TCPConnection(port: bridge.port)
        try first.send("hello\n")
        #expect(first.readLines(1).count == 1)
        var refused: [TCPConnection] = []
        for _ in 0..<60 { refused.append(try TCPConnection(port: bridge.port)) }
        // Each is closed at once by the bridge.
        for connection in refused { _ = connection.readUntilQuiet(quiet: 0.2, limit: 10) }
        #expect(bridge.waitForLog("more LCDproc connection(s)", timeout: 40), "\(bridge.log)")
        let warnings = bridge.log.split(separator: "\n").filter { $0.contains("refused") }
        #expect(warnings.count == 2, "\(warnings)")
        #expect(warnings.last?.contains("refused 59 more") == true, "\(warnings)")
    }

    @Test func e8_lcdprocsBigClockBlanksItsColonAndNeverShowsANineThere() throws {
        let bridge = try Bridge()
        let config = bridge.directory + "/lcdproc.conf"
        var text = "[lcdproc]\nServer=127.0.0.1\nPort=\(bridge.port)\nReportToSyslog=false\nForeground=true\n"
        for screen in ["CPU", "Memory", "Load", "Iface", "TimeDate", "Uptime", "Disk", "ProcSize", "MiniClock", "OldTime", "CPUGraph", "SMP-CPU", "Battery", "About"] {
            text += "[\(screen)]\nActive=false\n"
        }
        text += "[BigClock]\nActive=true\n"
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        let client = try Child(["/usr/bin/lcdproc", "-c", config, "-s", "127.0.0.1", "-p", "\(bridge.port)", "-f"])
        #expect(bridge.waitForLog("showing screen K of client 1"), "\(bridge.log)")
        // The colon blinks every second: watch it on and off.
        var rows: [String] = []
        _ = Waiting.until(seconds: 20, every: .milliseconds(200)) {
            rows = bridge.log.split(separator: "\n").compactMap { line in
                line.range(of: "showing screen K of client 1: ").map { String(line[$0.upperBound...]) }
            }
            return Set(rows).count >= 6 && rows.contains(where: { $0.contains(":") })
        }
        #expect(client.process.isRunning)
        let withColon = try #require(rows.first { $0.contains(":") }, "no colon ever: \(rows)")
        let colons = Array(withColon).indices.filter { Array(withColon)[$0] == ":" }
        #expect(!colons.isEmpty)
        for row in rows {
            let cells = Array(row)
            for column in colons where column < cells.count {
                #expect(cells[column] == ":" || cells[column] == " ", "'\(row)': the colon's cell holds '\(cells[column])'")
            }
        }
        #expect(rows.contains { row in colons.allSatisfy { $0 >= row.count || Array(row)[$0] == " " } }, "the colon never blinked off: \(rows)")
    }
}

/// E8 with I3: a press the server menu takes is the menu's, not the nook's open toggle, so
/// cards keep coming while and after lcdexec's menu is worked with Nook's two buttons.
@Suite("E8 nook-lcdproc menu presses and engagement end to end", .serialized, .ownThreads)
struct MenuEngagementTests {
    @Test func e8_aPressTheMenuTookLeavesTheNookClosedSoAHighCardShows() throws {
        let bridge = try Bridge(nookdConfig: "[debug]\npress_inputs = true\n")
        #expect(bridge.waitForLog("following nookd's inputs"), "\(bridge.log)")
        let dir = bridge.directory
        let config = dir + "/lcdexec.conf"
        try """
            [lcdexec]
            Address=127.0.0.1
            Port=\(bridge.port)
            ReportToSyslog=false
            Foreground=true
            Shell=/bin/sh
            [MainMenu]
            Entry=Touch
            [Touch]
            DisplayName="Touch it"
            Exec="touch \(dir)/ran"

            """.write(toFile: config, atomically: true, encoding: .utf8)
        let client = try Child(["/usr/bin/lcdexec", "-c", config, "-a", "127.0.0.1", "-p", "\(bridge.port)", "-f"])
        #expect(bridge.waitForLog("LCDproc client 1 connected"))
        func taken() -> Int { bridge.log.components(separatedBy: "to the server menu").count - 1 }
        func press(_ input: NookInputName) throws {
            _ = try NookClient(path: bridge.socket).request(Request(id: .number(1), operation: .press(input)), as: PressAnswer.self)
        }
        // dismiss (Escape) opens the menu once lcdexec's menu is built.
        let deadline = Date().addingTimeInterval(TestBounds.seconds(30))
        var refused = 0
        while taken() < 1, Date() < deadline {
            try press(.dismiss)
            refused += 1
            while taken() < 1, bridge.log.components(separatedBy: "no client reserved it").count - 1 < refused, Date() < deadline { usleep(20_000) }
        }
        #expect(bridge.waitForLog("showing the server menu: LCDproc Menu | ▸ lcdexec"), "\(bridge.log)")
        // nookd has the menu as its home before the press that is the menu's Enter.
        let homeDeadline = Date().addingTimeInterval(TestBounds.seconds(20))
        while (try? bridge.status().home) != "glance 40x4", Date() < homeDeadline { usleep(20_000) }
        // One press of open: Enter, into lcdexec's menu. An odd number of presses.
        try press(.open)
        #expect(bridge.waitForLog("▸ Touch it"), "\(bridge.log)")
        #expect(try bridge.status().engaged == false, "the menu's Enter opened the nook")
        // A high card is shown, not held back as if the person had opened the nook.
        let nook = try NookClient(path: bridge.socket)
        // A minute on the glass: the poll below finds it there however loaded the machine.
        var card = NookActivity(title: "Doorbell", dwell: .seconds(60))
        card.priority = .high
        _ = try nook.request(Request(id: .number(2), operation: .enqueue(card, module: nil, wait: false)))
        let shownDeadline = Date().addingTimeInterval(TestBounds.seconds(15))
        var current: String?
        while current == nil, Date() < shownDeadline {
            let list = try nook.request(Request(id: .number(3), operation: .list(module: nil)), as: ListAnswer.self).0
            current = list.modules.compactMap { $0.current?.title }.first
            usleep(50_000)
        }
        let engaged = try bridge.status().engaged
        #expect(current == "Doorbell", "the card stayed pending (engaged: \(engaged))")
        #expect(client.process.isRunning, "lcdexec exited: \(bridge.log)")
    }
}

extension MenuEngagementTests {
    @Test func e8_aBridgeThatDiesWithItsMenuOpenLeavesTheOpenButtonWorking() throws {
        let bridge = try Bridge(nookdConfig: "[debug]\npress_inputs = true\n")
        #expect(bridge.waitForLog("following nookd's inputs"), "\(bridge.log)")
        let client = try TCPConnection(port: bridge.port)
        try client.send("hello\nclient_set -name m\nmenu_add_item \"\" a action {Act}\n")
        #expect(client.readLines(3).last == "success")
        func press(_ input: NookInputName) throws {
            _ = try NookClient(path: bridge.socket).request(Request(id: .number(1), operation: .press(input)), as: PressAnswer.self)
        }
        try press(.dismiss)
        #expect(bridge.waitForLog("showing the server menu"), "\(bridge.log)")
        let deadline = Date().addingTimeInterval(TestBounds.seconds(20))
        while (try? bridge.status().home) != "glance 40x4", Date() < deadline { usleep(20_000) }
        try press(.open)
        #expect(try bridge.status().engaged == false)
        // The bridge goes with the menu on the glance: open is the nook's toggle again.
        kill(bridge.bridge.processIdentifier, SIGKILL)
        bridge.bridge.waitForExit()
        let released = Date().addingTimeInterval(TestBounds.seconds(20))
        var engaged = false
        // While the claim lasts a press does nothing; the first press after it opens the nook.
        while !engaged, Date() < released {
            try press(.open)
            engaged = try bridge.status().engaged
            if !engaged { usleep(100_000) }
        }
        #expect(engaged, "open did not toggle after the bridge died")
    }
}

/// E8 with I1: the menu's hold on the open button is a lease the bridge renews while its menu
/// is open, so it lasts as long as the menu and no longer than a stopped bridge.
extension MenuEngagementTests {
    /// A bridge with a client menu, the server menu opened by dismiss and on nookd's glass.
    func bridgeWithMenuOpen(bridgeArguments: [String] = []) throws -> (Bridge, TCPConnection) {
        let bridge = try Bridge(bridgeArguments: bridgeArguments, nookdConfig: "[debug]\npress_inputs = true\n")
        #expect(bridge.waitForLog("following nookd's inputs"), "\(bridge.log)")
        let client = try TCPConnection(port: bridge.port)
        try client.send("hello\nclient_set -name m\nmenu_add_item \"\" a action {Act}\nmenu_add_item \"\" b action {Bee}\n")
        #expect(client.readLines(4).last == "success")
        _ = try NookClient(path: bridge.socket).request(Request(id: .number(1), operation: .press(.dismiss)), as: PressAnswer.self)
        #expect(bridge.waitForLog("showing the server menu"), "\(bridge.log)")
        let deadline = Date().addingTimeInterval(TestBounds.seconds(20))
        while (try? bridge.status().home) != "glance 40x4", Date() < deadline { usleep(20_000) }
        return (bridge, client)
    }

    @Test func e8_aBridgeStoppedWithItsMenuOpenGivesTheOpenButtonBackAfterALease() throws {
        let (bridge, client) = try bridgeWithMenuOpen()
        defer { withExtendedLifetime(client) {} }
        // Stopped, not gone: its connection to nookd stays open.
        ProcessStop.stop(bridge.bridge.processIdentifier)
        defer { kill(bridge.bridge.processIdentifier, SIGCONT) }
        let released = Date().addingTimeInterval(TestBounds.seconds(60))
        var engaged = false
        while !engaged, Date() < released {
            _ = try NookClient(path: bridge.socket).request(Request(id: .number(1), operation: .press(.open)), as: PressAnswer.self)
            engaged = try bridge.status().engaged
            if !engaged { usleep(500_000) }
        }
        #expect(engaged, "open stayed the stopped bridge's menu's")
    }

    @Test func e8_aMenuLeftOpenLongerThanTheLeaseStillTakesTheOpenPress() throws {
        // The menu never times out here, so only the lower bound matters: longer than nookd's
        // lease (10 s), however long a loaded machine takes.
        let (bridge, client) = try bridgeWithMenuOpen(bridgeArguments: ["--menu-timeout", "0"])
        defer { withExtendedLifetime(client) {} }
        sleep(14)
        #expect(!bridge.log.contains("disconnected"), "\(bridge.log)")
        _ = try NookClient(path: bridge.socket).request(Request(id: .number(1), operation: .press(.open)), as: PressAnswer.self)
        #expect(bridge.waitForLog("key Enter to the server menu"), "\(bridge.log)")
        #expect(try bridge.status().engaged == false, "the open menu's Enter opened the nook: \(bridge.log)")
    }
}

/// E8 with E3: one press does one thing. A press that invokes the card over the menu is not
/// also the menu's Enter.
extension MenuEngagementTests {
    @Test func e8_aPressThatInvokesTheCardOverTheMenuIsNotAlsoTheMenusEnter() throws {
        let (bridge, client) = try bridgeWithMenuOpen()
        defer { withExtendedLifetime(client) {} }
        let nook = try NookClient(path: bridge.socket)
        var card = NookActivity(title: "Reply?")
        card.priority = .high
        card.hasAction = true
        card.dwell = .seconds(60)
        _ = try nook.request(Request(id: .number(2), operation: .enqueue(card, module: nil, wait: false)))
        let shownDeadline = Date().addingTimeInterval(TestBounds.seconds(15))
        var current: String?
        while current == nil, Date() < shownDeadline {
            let list = try nook.request(Request(id: .number(3), operation: .list(module: nil)), as: ListAnswer.self).0
            current = list.modules.compactMap { $0.current?.title }.first
            if current == nil { usleep(50_000) }
        }
        #expect(current == "Reply?")
        _ = try nook.request(Request(id: .number(4), operation: .press(.open)), as: PressAnswer.self)
        let deadline = Date().addingTimeInterval(TestBounds.seconds(20))
        while !bridge.log.contains("acted on the card on the glass"), !bridge.log.contains("key Enter"), Date() < deadline { usleep(20_000) }
        #expect(!bridge.log.contains("key Enter"), "the card's press went to the menu under it too: \(bridge.log)")
    }
}
