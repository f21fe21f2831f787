import Foundation
import NookProtocol
import NookTestTraits
import Testing

/// T1 through a real nookd: `status` says which touch panel is read and what is wrong, and
/// `touch.enabled = false` leaves nothing to report; bad `[touch]` settings refuse the start
/// with the key named.
@Suite("T1 the touch panel in nookctl status", .serialized, .ownThreads)
struct TouchStatusTests {
    @Test func t1_statusSaysThereIsNoTouchscreenAndTouchOffReportsNothing() throws {
        let scratch = Scratch()
        let on = scratch.file("on.toml", "[touch]\nenabled = true\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", on])
        // The touch service's first look at /dev/input may come after nookd first answers (on a
        // loaded machine, seconds after): until then status says it has not looked yet.
        var json = try daemon.request(.status)
        try eventually("the touch panel looked for") {
            json = try daemon.request(.status)
            return json["touch"]?["problem"]?.text != "not looked for yet"
        }
        #expect(json["touch"]?["device"] == .null)
        #expect(json["touch"]?["gestures"] == .number(0))
        #expect(json["touch"]?["problem"]?.text?.isEmpty == false)
        let text = try nookctl(["status"], socket: daemon.socket).output
        // The problem alone: no panel has given a gesture to speak of.
        let touchLine = text.split(separator: "\n").first { $0.hasPrefix("touch: ") }.map(String.init) ?? ""
        #expect(touchLine == "touch: " + (json["touch"]?["problem"]?.text ?? "?"), "\(text)")
        #expect(daemon.stop().status == 0)

        let off = scratch.file("off.toml", "[touch]\nenabled = false\n")
        let quiet = try DaemonProcess(scratch: Scratch(), arguments: ["--config", off])
        #expect(try quiet.request(.status)["touch"] == .null)
        #expect(!(try nookctl(["status"], socket: quiet.socket).output.contains("touch:")))
        #expect(quiet.log.contains("touch: off (touch.enabled = false)"))
        #expect(quiet.stop().status == 0)

        // Unset on a machine without a touchscreen: not looked for again, and said so.
        let unset = try DaemonProcess(scratch: Scratch())
        let problem = try unset.request(.status)["touch"]?["problem"]?.text ?? ""
        #expect(problem.hasSuffix("when nookd started; touch.enabled = true waits for one"), "\(problem)")
        #expect(!unset.log.contains("warning nookd: [NookDaemon] touch:"), "no warning for a board without touch: \(unset.log)")
        #expect(unset.stop().status == 0)
    }

    @Test func t1_aBadTouchSettingRefusesTheStartNamingTheKey() throws {
        let scratch = Scratch()
        let bad = scratch.file("nook.toml", "[touch]\nlong_press_ms = 20\n")
        let daemon = try DaemonProcess.exited(scratch: scratch, arguments: ["--config", bad])
        #expect(daemon.process.terminationStatus == 2)
        #expect(daemon.log.contains("nook.toml:2: touch.long_press_ms: must be from 200 to 5000, got 20"), "\(daemon.log)")
    }
}
