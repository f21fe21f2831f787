import Foundation
import NookActivities
@testable import NookDaemon
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// Through a real nookd and nookctl: snoozes a journal holds come back after a restart, and a
/// cancel of one is kept across the next.
@Suite("J1 T2 end to end: snoozes across nookd's restarts", .serialized, .ownThreads)
struct SnoozeEndToEndTests {
    @Test func j1_t2_nookdBringsBackTheSnoozesItsJournalHoldsAndKeepsTheirCancel() async throws {
        let scratch = Scratch()
        let path = scratch.path + "/journal"
        // What a run of nookd left when it stopped: one snooze due in an hour, one due while it was down.
        let now = ActivityJournal.realtime()
        let later = NookActivity(coalescingKey: "laundry", title: "Laundry (snoozed)", presentation: .blocker(timeout: nil))
        let due = NookActivity(title: "Kettle (snoozed)", presentation: .blocker(timeout: nil))
        let left = ActivityJournal(path: path, warn: { _ in })
        _ = left.recover()
        left.snoozed(later, module: "default", until: now + 3600)
        left.snoozed(due, module: "default", until: now - 60)
        await left.finish()

        let arguments = ["--journal", path]
        var daemon = try DaemonProcess(scratch: scratch, arguments: arguments)
        try eventually("the one due is back") { try nookctl(["list"], socket: daemon.socket).output.contains(due.id.description) }
        let status = try StatusAnswer(json: daemon.request(.status))
        #expect(status.touch?.snoozed == 1, "the other still snoozed: \(String(describing: status.touch))")
        #expect(!(try nookctl(["list"], socket: daemon.socket).output.contains(later.id.description)))
        #expect(daemon.log.contains("\(later.id) \"Laundry (snoozed)\" is still snoozed; back in 1 h"), "\(daemon.log.suffix(2000))")
        #expect(daemon.log.contains("\(due.id) \"Kettle (snoozed)\" is still snoozed; back now, its time passed while nookd was down"))

        // Its sender (the test's uid) cancels it: the answer comes once the journal has it.
        let cancel = try nookctl(["cancel", later.id.description], socket: daemon.socket)
        #expect(cancel.status == 0, "\(cancel)")
        #expect(try StatusAnswer(json: daemon.request(.status)).touch?.snoozed == 0)
        #expect(daemon.stop().status == 0)

        daemon = try DaemonProcess(scratch: scratch, arguments: arguments)
        #expect(try StatusAnswer(json: daemon.request(.status)).touch?.snoozed == 0, "cancelled: not back after a restart")
        let listed = try nookctl(["list"], socket: daemon.socket).output
        #expect(listed.contains(due.id.description) && !listed.contains(later.id.description), "\(listed)")
        #expect(daemon.stop().status == 0)
    }

    /// A snoozed card's id stays its sender's until it is back: another sender's card with that
    /// id is refused (and the snooze kept), as for a card on the glass; its own sender's newer
    /// card takes the id and ends the snooze.
    @Test func u3_t2_anotherSendersCardCannotTakeASnoozedCardsIdAndEndItsSnooze() async throws {
        let scratch = Scratch()
        let path = scratch.path + "/journal"
        var snoozed = NookActivity(title: "Oven (snoozed)", presentation: .blocker(timeout: nil))
        snoozed.sender = NookSender(uid: getuid(), pid: 1, name: "alice", relayed: true)
        let left = ActivityJournal(path: path, warn: { _ in })
        _ = left.recover()
        left.snoozed(snoozed, module: "default", until: ActivityJournal.realtime() + 3600)
        await left.finish()

        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--journal", path])
        func enqueue(as name: String) throws -> ProtocolError? {
            let client = try daemon.client()
            var card = NookActivity(title: "Taken by \(name)")
            card.id = snoozed.id
            card.sender = NookSender(uid: 0, pid: 0, name: name)
            do {
                _ = try client.request(Request(id: .number(1), operation: .enqueue(card, module: nil, wait: false)))
                return nil
            } catch .daemon(let error) {
                return error
            } catch {
                return ProtocolError(.internalError, "\(error)")
            }
        }
        let refused = try enqueue(as: "bob")
        #expect(refused?.field == "activity.id" && refused?.message.contains("snoozed") == true, "\(String(describing: refused))")
        #expect(try StatusAnswer(json: daemon.request(.status)).touch?.snoozed == 1, "bob's card left alice's snooze alone")
        #expect(!(try nookctl(["list"], socket: daemon.socket).output.contains(snoozed.id.description)))

        #expect(try enqueue(as: "alice") == nil, "its own sender's newer card takes the id")
        #expect(try StatusAnswer(json: daemon.request(.status)).touch?.snoozed == 0)
        #expect(daemon.stop().status == 0)
    }
}
