import Foundation
import NookActivities
@testable import NookDaemon
import NookTestSupport
import Testing

/// Found by reading the journal as an attacker would: restarts in a row, ids reused by
/// scripts, a disk that stops answering at shutdown.
@Suite("J1 N2 the journal across restarts and a stalled disk")
struct JournalRestartTests {
    func journal(_ path: String, wall: Locked<Double>, syncer: TestSyncer = TestSyncer()) -> ActivityJournal {
        ActivityJournal(path: path, warn: { _ in }, wallClock: { wall.withLock { $0 } }, syncer: syncer.syncer)
    }

    /// Recovery once returned such an id twice; the queue refused the second copy as a
    /// duplicate, and that refusal ended the first one's record: the next cut lost it.
    @Test func j1_anIdAddedEndedAndAddedAgainWithinOneLogIsRestoredOnce() async throws {
        let scratch = Scratch()
        let path = scratch.path + "/journal"
        let wall = Locked(1_000_000.0)
        let first = journal(path, wall: wall)
        _ = first.recover()
        let nightly = NookActivity(title: "Backup complete")
        first.added(nightly, module: "default")
        first.ended(nightly.id)
        first.added(nightly, module: "default")
        await first.finish()

        let second = journal(path, wall: wall)
        let recovery = second.recover()
        #expect(recovery.entries.map(\.activity.id) == [nightly.id])
        #expect(second.liveCount == 1)
        await second.finish()
    }

    /// A cancel of a pending card is recorded by the queue at once and again by the request
    /// that made it; another client may enqueue a new activity under the freed id in between.
    /// The request's end once removed the newcomer's record, and the next restart lost it.
    @Test func j1_aRequestsEndDoesNotEndANewActivityUnderTheSameId() async throws {
        let scratch = Scratch()
        let path = scratch.path + "/journal"
        let wall = Locked(1_000_000.0)
        let first = journal(path, wall: wall)
        _ = first.recover()
        let doorbell = NookActivity(title: "Doorbell")
        first.added(doorbell, module: "default")
        let seen = first.arrival(of: doorbell.id)
        #expect(seen != nil)
        first.ended(doorbell.id)  // the queue's own record of the cancel
        var again = doorbell
        again.title = "Doorbell again"
        first.added(again, module: "default")  // another client, between the two
        first.ended(doorbell.id, arrival: seen)  // the cancel request's record
        #expect(first.liveCount == 1)
        await first.finish()

        let second = journal(path, wall: wall)
        #expect(second.recover().entries.map(\.activity.title) == ["Doorbell again"])
        await second.finish()
    }

    /// The time before a restart was once subtracted again at the next one: two restarts a
    /// minute apart dropped an activity with most of its hour still to go.
    @Test func q17_expiryIsCountedOnceAcrossRestartsInARow() async throws {
        let scratch = Scratch()
        let path = scratch.path + "/journal"
        let wall = Locked(1_000_000.0)
        let first = journal(path, wall: wall)
        _ = first.recover()
        let reminder = NookActivity(title: "Meeting in an hour", expiresAfter: .seconds(3600))
        first.added(reminder, module: "default")
        await first.finish()

        wall.withLock { $0 += 1800 }
        let second = journal(path, wall: wall)
        let afterFirstRestart = second.recover()
        #expect(afterFirstRestart.entries.first?.activity.expiresAfter == .seconds(1800))
        await second.finish()

        wall.withLock { $0 += 60 }
        let third = journal(path, wall: wall)
        let afterSecondRestart = third.recover()
        #expect(afterSecondRestart.expired.isEmpty)
        #expect(afterSecondRestart.entries.first?.activity.expiresAfter == .seconds(1740))
        await third.finish()
    }

    /// N2: a disk that stops answering must not keep nookd (and the display it holds) past
    /// its two seconds on SIGTERM.
    @Test func n2_finishingGivesUpOnADiskThatDoesNotAnswer() async throws {
        let scratch = Scratch()
        let syncer = TestSyncer()
        let journal = journal(scratch.path + "/journal", wall: Locked(1_000_000.0), syncer: syncer)
        _ = journal.recover()
        syncer.hold()
        journal.added(NookActivity(title: "stuck"), module: "default")
        #expect(await journal.finish(within: .milliseconds(200)) == false)
        syncer.letGo()
        #expect(await journal.finish(within: .seconds(20)) == true)
    }
}
