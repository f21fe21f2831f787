import Foundation
import NookActivities
import NookProtocol
import Testing

/// SPEC E3 end to end: a notification's "default" action, invoked on its card through nookd
/// (`nookctl invoke`, what the open input does), reaches Debian's own `notify-send` as
/// ActionInvoked, and the notification then closes as dismissed by the user.
@Suite("E3 the default action of a notification", .serialized, .ownThreads, .enabled(if: NotifyTools.available, NotifyTools.skipReason))
struct NotifyActionTests {
    typealias Setup = NotifyBridgeTests.Setup

    @Test func e3_notifySendWaitPrintsDefaultWhenItsCardIsInvokedAndItClosesAsDismissed() throws {
        let setup = try Setup()
        let printed = setup.scratch.path + "/notify-send.out"
        let waiting = try setup.bus.start(["notify-send", "--action=default=Open", "--wait", "-t", "0", "New mail", "From Ada"], output: printed)
        try eventually("the card on the glass") { try setup.daemon.activities()[0].current?.title == "New mail" }
        let card = try #require(try setup.daemon.activities()[0].current)
        #expect(card.hasAction, "a notification with a default action is a card with an action")
        let invoked = try nookctl(["invoke"], socket: setup.daemon.socket)
        #expect(invoked.status == 0, "\(invoked.error)")
        #expect(invoked.output.trimmingCharacters(in: .whitespacesAndNewlines) == card.id.description)
        try eventually("notify-send to return", timeout: 20) { !waiting.isRunning }
        #expect(waiting.terminationStatus == 0)
        let output = (try? String(contentsOfFile: printed, encoding: .utf8)) ?? ""
        #expect(output.split(separator: "\n").contains("default"), "notify-send printed the invoked action's key: '\(output)'")
        #expect(setup.monitor.signals("ActionInvoked").contains(["uint32 1", "string \"default\""]), "\(setup.monitor.text)")
        try eventually("NotificationClosed(1, 2)") { setup.monitor.closeReasons(1) == ["uint32 2"] }
        #expect(try setup.allActivities().isEmpty)
    }

    @Test func e3_aResidentNotificationStaysOnTheGlassAfterItsAction() throws {
        let setup = try Setup()
        // gdbus, not notify-send: notify-send closes a notification itself once its action is
        // invoked (then reason 3, closed by the call), which a resident one's client need not.
        let sent = try setup.bus.call("Notify", ["app", "uint32 0", "", "Timer", "", "['default', 'Open']", "{'resident': <true>}", "int32 0"])
        #expect(sent.status == 0 && sent.output.contains("uint32 1"), "\(sent.output) \(sent.error)")
        try eventually("the card on the glass") { try setup.daemon.activities()[0].current?.title == "Timer" }
        #expect(try nookctl(["invoke"], socket: setup.daemon.socket).status == 0)
        try eventually("ActionInvoked(1, default)") { setup.monitor.signals("ActionInvoked").contains(["uint32 1", "string \"default\""]) }
        // The bridge has acted on the event by now (it signalled it); a marker Notify, sent to
        // nookd on the bridge's one connection after anything that acting sent, shows nookd has
        // taken all of it: the card is still there.
        // Empty containers typed: gdbus learns the arguments' types by introspecting the bridge,
        // and when that call fails under load it parses an untyped `[]` as a string.
        let marker = try setup.bus.call("Notify", ["app", "uint32 0", "", "Marker", "", "@as []", "@a{sv} {}", "int32 -1"])
        #expect(marker.status == 0, "\(marker.error)")
        try eventually("the marker at nookd") { try setup.allActivities().contains { $0.title == "Marker" } }
        #expect(try setup.daemon.activities()[0].current?.title == "Timer")
        #expect(setup.monitor.closeReasons(1).isEmpty)
    }

    @Test func e3_aCardWithoutADefaultActionIsNotInvokedAndStays() throws {
        let setup = try Setup()
        let nothing = try nookctl(["invoke"], socket: setup.daemon.socket)
        #expect(nothing.status == ExitCodes.notFound, "\(nothing.error)")
        #expect(nothing.error.contains("nothing is on the glass to invoke"))
        // notify-send waits while a notification with actions is open: in the background.
        let waiting = try setup.bus.start(["notify-send", "-A", "reply=Reply", "-t", "0", "Only a reply action"])
        defer { stopProcess(waiting) }
        try eventually("the card on the glass") { try setup.daemon.activities()[0].current != nil }
        let card = try #require(try setup.daemon.activities()[0].current)
        #expect(!card.hasAction, "only the default action is one the open input can invoke")
        let refused = try nookctl(["invoke", card.id.description], socket: setup.daemon.socket)
        #expect(refused.status != 0 && refused.error.contains("has no action to invoke"), "\(refused.error)")
        #expect(try setup.daemon.activities()[0].current?.id == card.id)
        #expect(setup.monitor.signals("ActionInvoked").isEmpty)
    }

    @Test func e1_e3_getCapabilitiesAdvertisesActions() throws {
        let setup = try Setup()
        let capabilities = try setup.bus.call("GetCapabilities")
        #expect(capabilities.output.contains("'actions'"), "\(capabilities.output)")
    }
}
