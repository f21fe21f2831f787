import Foundation
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// E8 end to end: Debian's real `lcdexec` builds its menu on nook-lcdproc, and presses of
/// Nook's two buttons through nookd (`press`, the buttons' stand-in) open the server menu,
/// move through it and select an entry, which lcdexec runs.
@Suite("E8 nook-lcdproc menus end to end", .serialized, .ownThreads)
struct MenuBridgeTests {
    func press(_ input: NookInputName, _ bridge: Bridge, expecting count: Int) throws {
        _ = try NookClient(path: bridge.socket).request(Request(id: .number(1), operation: .press(input)), as: PressAnswer.self)
        // Each press is logged once the menu took it: wait for it before the next.
        let deadline = Date().addingTimeInterval(TestBounds.seconds(20))
        while bridge.log.components(separatedBy: "to the server menu").count - 1 < count, Date() < deadline { usleep(20_000) }
        #expect(bridge.log.components(separatedBy: "to the server menu").count - 1 >= count, "press \(count) not taken: \(bridge.log)")
    }

    func waitForFile(_ path: String) -> Bool {
        Waiting.until(seconds: 20, every: .milliseconds(50)) { FileManager.default.fileExists(atPath: path) }
    }

    @Test func e8_lcdexecsCommandRunsFromTheMenuWithNooksTwoButtons() throws {
        let bridge = try Bridge(nookdConfig: "[debug]\npress_inputs = true\n")
        #expect(bridge.waitForLog("following nookd's inputs"), "\(bridge.log)")
        #expect(bridge.log.contains("moves to the next entry once open (two keys)"), "\(bridge.log)")
        let dir = bridge.directory
        // The second entry's name is hostile: nothing of it may run anywhere (lcdexec sends it
        // to the server as the entry's text; only Exec is a command).
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
            Entry=Hostile
            [Touch]
            DisplayName="Touch it"
            Exec="touch \(dir)/ran"
            [Hostile]
            DisplayName="$(touch \(dir)/pwned) `touch \(dir)/pwned2` it's ${HOME} ; touch \(dir)/pwned3"
            Exec="touch \(dir)/hostile-ran"

            """.write(toFile: config, atomically: true, encoding: .utf8)
        let client = try Child(["/usr/bin/lcdexec", "-c", config, "-a", "127.0.0.1", "-p", "\(bridge.port)", "-f"])
        #expect(bridge.waitForLog("LCDproc client 1 connected"))
        // dismiss (Escape) opens the menu: lcdexec's menu, then Close. Until lcdexec's menu is
        // built (a loaded machine) the key has nowhere to go: press again then.
        let deadline = Date().addingTimeInterval(TestBounds.seconds(30))
        var refused = 0
        while bridge.log.components(separatedBy: "to the server menu").count < 2, Date() < deadline {
            _ = try NookClient(path: bridge.socket).request(Request(id: .number(1), operation: .press(.dismiss)), as: PressAnswer.self)
            refused += 1
            while bridge.log.components(separatedBy: "to the server menu").count < 2,
                  bridge.log.components(separatedBy: "no client reserved it").count - 1 < refused, Date() < deadline { usleep(20_000) }
        }
        #expect(!bridge.log.contains("huh?"), "lcdexec got an error: \(bridge.log)")
        #expect(bridge.waitForLog("showing the server menu: LCDproc Menu | ▸ lcdexec"), "\(bridge.log)")
        // open (Enter) enters lcdexec's menu; open again selects "Touch it", which lcdexec runs.
        try press(.open, bridge, expecting: 2)
        #expect(bridge.waitForLog("▸ Touch it"), "\(bridge.log)")
        try press(.open, bridge, expecting: 3)
        #expect(waitForFile(dir + "/ran"), "lcdexec never ran its command: \(bridge.log)")
        // The action quits the menu (lcdexec's -menu_result quit): nookd's home is back.
        #expect(bridge.waitForLog("(closed)"), "\(bridge.log)")
        // Again, to the hostile entry: dismiss opens, open enters, dismiss moves down, open selects.
        try press(.dismiss, bridge, expecting: 4)
        try press(.open, bridge, expecting: 5)
        try press(.dismiss, bridge, expecting: 6)
        #expect(bridge.waitForLog("▸ $(touch"), "\(bridge.log)")
        try press(.open, bridge, expecting: 7)
        #expect(waitForFile(dir + "/hostile-ran"), "lcdexec never ran the second command: \(bridge.log)")
        usleep(300_000)
        for name in ["pwned", "pwned2", "pwned3"] {
            #expect(!FileManager.default.fileExists(atPath: dir + "/" + name), "the entry's name ran as a command: \(name)")
        }
        #expect(client.process.isRunning, "lcdexec exited: \(bridge.log)")
    }
}
