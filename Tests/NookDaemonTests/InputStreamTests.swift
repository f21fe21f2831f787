import Foundation
import NookActivities
import NookConfig
@testable import NookDaemon
import NookProtocol
import Testing

/// E8: nookd reports presses of its inputs on an `inputs` stream, which bridges offer their
/// own clients as keys; `press` (only with `debug.press_inputs`) acts as the buttons.
@Suite("E8 nookd's inputs stream", .serialized, .ownThreads)
struct InputStreamTests {
    @Test func e8_aPressIsStreamedToInputsWatchersAndActsAsTheButton() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[debug]\npress_inputs = true\n[queue]\npoll_interval_ms = 50\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        let watcher = try daemon.client()
        _ = try watcher.request(Request(id: .number(1), operation: .inputs), as: InputsAnswer.self)
        let presser = try daemon.client()
        #expect(try presser.request(Request(id: .number(2), operation: .press(.open)), as: PressAnswer.self).0.pressed == .open)
        func nextPress() throws -> InputMessage? {
            guard let line = try watcher.readLine(), case .event(let id, let event) = try ResponseLine.decode(line) else { return nil }
            #expect(id == .number(1))
            return InputMessage(json: event)
        }
        #expect(try nextPress() == InputMessage(input: .open, source: "press"))
        // The open press toggles the nook open, as a second open button would.
        #expect((try daemon.request(.status))["engaged"] == .bool(true))
        _ = try presser.request(Request(id: .number(4), operation: .press(.open)), as: PressAnswer.self)
        #expect(try nextPress() == InputMessage(input: .open, source: "press"))
        #expect((try daemon.request(.status))["engaged"] == .bool(false))
        // The dismiss press ends the card on the glass, as the dismiss button does.
        var blocker = NookActivity(title: "Until dismissed")
        blocker.presentation = .blocker(timeout: nil)
        try daemon.request(.enqueue(blocker, module: nil, wait: false))
        try eventually("the card on the glass") {
            (try daemon.request(.status))["modules"]?.items.first?["current"]?["title"] == .string("Until dismissed")
        }
        _ = try presser.request(Request(id: .number(3), operation: .press(.dismiss)), as: PressAnswer.self)
        #expect(try nextPress() == InputMessage(input: .dismiss, source: "press"))
        try eventually("the card dismissed") { (try daemon.request(.status))["modules"]?.items.first?["current"] == .null }
        #expect(daemon.stop().status == 0)
    }

    @Test func e8_pressIsRefusedUnlessTheConfigAllowsIt() throws {
        let daemon = try DaemonProcess()
        do {
            _ = try daemon.client().request(Request(id: .number(1), operation: .press(.dismiss)), as: PressAnswer.self)
            Issue.record("press accepted without debug.press_inputs")
        } catch {
            #expect("\(error)".contains("debug.press_inputs"), "\(error)")
        }
        #expect(daemon.stop().status == 0)
    }

    @Test func e8_nookdLeavesTheLcdprocTablesOfItsFileToNookLcdproc() throws {
        let text = "[display]\nrotation = 180\n[lcdproc]\nport = 13667\nsize = \"20x2\"\n[lcdproc.keys]\nopen = \"Up\"\n"
        let config = try DaemonConfig(reading: ConfigReader(try ConfigDocument(parsing: text, source: "nook.toml")))
        #expect(config.screen.rotation != .none)
        // Its own typos are still caught.
        #expect(throws: ConfigError.self) {
            try DaemonConfig(reading: ConfigReader(try ConfigDocument(parsing: text + "[queue]\npoll_intervl_ms = 5\n", source: "nook.toml")))
        }
    }
}
