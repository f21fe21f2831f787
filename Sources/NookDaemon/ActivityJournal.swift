#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import NookActivities
import NookProtocol
import NookSystem
import Synchronization

/// How far a journal record has to get before nookd answers the request that made it (SPEC J1, J2).
public enum JournalSync: String, CaseIterable, Sendable {
    /// On stable storage (`fdatasync`) before the answer or the event: a power cut loses
    /// nothing acknowledged. Requests that arrive during a sync share the next one.
    case ack
    /// Written to the file (the page cache) before the answer; synced within a second of the
    /// write. A crash of nookd loses nothing; a power cut loses up to the last second.
    case interval
}

/// Every activity that has not ended, kept on disk so a crash, a restart or a power cut loses
/// none (SPEC Q16, N2, J1, J2).
///
/// A use of the ``DurableLog``: one record per add, update, showing and end. Records are
/// appended by whoever changes the queues (synchronously, from inside the queue that emits
/// them, see ``follow(_:module:)``); requests wait in ``settle(through:)`` until the log's
/// writer has synced them (``JournalSync/ack``) or written them (``JournalSync/interval``).
/// Nothing else in nookd waits for the disk. When the log grows past ``compactionBytes`` and
/// twice what is live, it is rewritten with the live records only.
final class ActivityJournal: Sendable {
    /// One activity that had not ended.
    struct Entry: Sendable {
        var sequence: UInt64
        var module: NookModuleID
        var activity: NookActivity
        /// Wall-clock seconds at enqueue, for `expiresAfter` across a restart.
        var enqueuedAt: Double
        /// On the glass when the record was last written: it goes back first.
        var wasShown: Bool
    }

    /// A card snoozed by a long press (T2), to come back at `until` (wall-clock seconds).
    struct Snooze: Sendable {
        var entry: Entry
        var until: Double
    }

    /// What start-up found in the journal.
    struct Recovery: Sendable {
        var entries: [Entry] = []
        /// Snoozed cards still to come back, soonest first.
        var snoozes: [Snooze] = []
        /// The apps (A1) as last set; a lifetime that ran out while nookd was down is the apps'
        /// service's to apply.
        var apps: [NookAppShelf.Entry] = []
        var expired: [Entry] = []
        var warnings: [String] = []
        /// Why nookd must not start with this path (``DurableFile/refusal(of:label:limit:)``):
        /// nothing was read, written or started.
        var refusal: String?
    }

    typealias Syncer = DurableFile.Syncer

    static let compactionBytes = 256 * 1024
    /// A journal larger than this is not read (capacity × modules of records is far less).
    static let maximumBytes = 64 * 1024 * 1024
    static var retryAfterSeconds: Double { DurableFile.retryAfterSeconds }
    /// How long records nobody waits for (a card taking the glass, a card's own end) may stay
    /// in memory, so that a burst of them is one write. Records an answer waits for go at once.
    static let writeDelay = 0.02

    let path: String
    let mode: JournalSync
    let log: DurableLog<JournalContent>
    let wallClock: @Sendable () -> Double

    init(path: String, mode: JournalSync = .ack, warn: @escaping @Sendable (String) -> Void,
         wallClock: @escaping @Sendable () -> Double = ActivityJournal.realtime,
         monotonic: @escaping @Sendable () -> Double = { MonotonicClock.seconds },
         syncer: @escaping Syncer = DurableFile.systemSync) {
        self.path = path
        self.mode = mode
        self.wallClock = wallClock
        log = DurableLog(path: path, content: JournalContent(),
                         settings: .init(label: "journal", keeping: "activities", maximumBytes: Self.maximumBytes, writeDelay: Self.writeDelay),
                         warn: warn, monotonic: monotonic, syncer: syncer)
    }

    // MARK: Start-up

    /// Reads the journal left by the last run, then starts a fresh one holding what is still
    /// live, synced, and starts the writer thread. Damage at the end (a record cut short, or a
    /// zero-filled tail that a power cut leaves) is dropped with a warning that says what it
    /// was; a journal damaged before its end is renamed aside (`.corrupt-TIME`) after taking
    /// the records before the damage. Expired activities are reported, not returned.
    func recover() -> Recovery {
        var recovery = Recovery()
        if let refusal = refusal() {
            recovery.refusal = refusal
            return recovery
        }
        let now = wallClock()
        switch log.contents() {
        case .missing:
            break
        case .failed(let problem):
            recovery.warnings.append("journal \(path): \(problem); starting without it")
            recovery.warnings += log.setAside(now: wallClock())
        case .contents(let bytes):
            let scan = JournalScan(bytes)
            if let damage = scan.damage {
                recovery.warnings.append("journal \(path): \(damage.description(keptRecords: scan.records.count))")
                // Only what a power cut or a kill leaves is expected; anything else is kept aside.
                if !damage.torn { recovery.warnings += log.setAside(now: wallClock()) }
            }
            var records: [String: Entry] = [:]
            var snoozes: [String: Snooze] = [:]
            var apps: [String: NookAppShelf.Entry] = [:]
            var order: [String] = []
            // An id may be added, ended and added again within one log (a script that reuses
            // its `--id`): it is listed once, or recovery would return it twice and the queue's
            // refusal of the second copy would end the first one's record.
            var listed: Set<String> = []
            for record in scan.records {
                switch record {
                case .added(var entry):
                    let key = entry.activity.id.description
                    if listed.insert(key).inserted { order.append(key) }
                    // A second record of a live activity is an update (U1): it stays where it
                    // was on the glass or in the queue.
                    if let live = records[key] { (entry.wasShown, entry.sequence) = (live.wasShown, live.sequence) }
                    records[key] = entry
                    // Back from its snooze (or its id taken by a newer card, which the snooze
                    // would not come back over).
                    snoozes[key] = nil
                case .shown(let id):
                    records[id.description]?.wasShown = true
                case .ended(let id):
                    records[id.description] = nil
                case .snoozed(let snooze):
                    // Its showing ended with the snooze (the end record may follow or not).
                    let key = snooze.entry.activity.id.description
                    records[key] = nil
                    snoozes[key] = snooze
                case .unsnoozed(let id):
                    snoozes[id.description] = nil
                case .appSet(let entry):
                    apps[entry.app.name] = entry
                case .appsSet(let entries):
                    for entry in entries { apps[entry.app.name] = entry }
                case .appRemoved(let name):
                    apps[name] = nil
                }
            }
            recovery.snoozes = snoozes.values.sorted { $0.until < $1.until }
            recovery.apps = apps.values.sorted { $0.arrival < $1.arrival }
            for key in order {
                guard var entry = records[key] else { continue }
                if let expiresAfter = entry.activity.expiresAfter, !entry.wasShown {
                    let remaining = expiresAfter - Duration.nookSeconds(max(0, now - entry.enqueuedAt))!
                    guard remaining > .zero else { recovery.expired.append(entry); continue }
                    // Counted from now in the fresh file, so the next restart does not subtract
                    // the time before this one a second time.
                    entry.activity.expiresAfter = remaining
                    entry.enqueuedAt = now
                }
                recovery.entries.append(entry)
            }
        }
        // What was on the glass goes back first, then the rest in the order they came.
        recovery.entries.sort { ($0.wasShown ? 0 : 1, $0.sequence) < ($1.wasShown ? 0 : 1, $1.sequence) }
        log.state.withLock { state in
            for (offset, entry) in recovery.entries.enumerated() {
                var renumbered = entry
                renumbered.sequence = UInt64(offset + 1)
                renumbered.wasShown = false
                state.content.live[entry.activity.id] = renumbered
            }
            state.content.nextSequence = UInt64(recovery.entries.count + 1)
            for snooze in recovery.snoozes { state.content.snoozed[snooze.entry.activity.id] = snooze }
            for app in recovery.apps { state.content.apps[app.app.name] = app }
        }
        // Before any request: the fresh file (and its directory entry) is on stable storage
        // before nookd answers anything, so nothing restored is lost to a cut right after.
        log.startRewriting()
        return recovery
    }

    /// Why nookd must not start with this journal path, or nil (see ``DurableFile``).
    func refusal() -> String? { log.refusal() }

    // MARK: Recording

    /// Records every change of `queue` that must survive, synchronously, as the queue emits
    /// it: by the time `enqueue`, `cancel` or `dismiss` returns, its record is appended, so the
    /// request's ``mark`` covers it, and no end is ever lost to a task that had not run yet.
    func follow(_ queue: NookActivityQueue, module: NookModuleID) -> NookObservation {
        queue.observe { [weak self] events in self?.record(events, module: module) }
    }

    /// The records of one change of a queue, appended together: an arrival before the ends it
    /// caused (evicted, coalesced), so that whatever prefix of the log a power cut leaves never
    /// holds an end without the arrival that caused it.
    func record(_ events: [NookActivityEvent], module: NookModuleID) {
        var arrivals: [NookActivity] = []
        var updates: [NookActivity] = []
        var shown: [NookActivityID] = []
        var ends: [NookActivityID] = []
        for event in events {
            switch event.kind {
            case .enqueued: arrivals.append(event.activity)
            case .updated: updates.append(event.activity)
            case .animateIn: shown.append(event.id)
            // A refused request names only itself: an id refused as a duplicate belongs to a
            // live activity, whose record stays (and an invalid one was never recorded).
            case .rejected(.invalid): break
            case .hidden, .rejected: ends.append(event.id)
            case .presented, .animateOut, .requeued, .invoked: break
            }
        }
        guard !arrivals.isEmpty || !updates.isEmpty || !shown.isEmpty || !ends.isEmpty else { return }
        appending { state in
            for activity in arrivals { add(activity, module: module, to: &state) }
            for activity in updates { update(activity, in: &state) }
            for id in shown { show(id, in: &state) }
            for id in ends { end(id, in: &state) }
        }
    }

    /// An accepted activity. Idempotent (a restored activity is already live).
    func added(_ activity: NookActivity, module: NookModuleID) {
        appending { add(activity, module: module, to: &$0) }
    }

    /// The activity took the glass.
    func shown(_ id: NookActivityID) {
        appending { show(id, in: &$0) }
    }

    /// The activity ended (or a request ended it): it never comes back. Idempotent.
    func ended(_ id: NookActivityID) {
        appending { end(id, in: &$0) }
    }

    /// A long press snoozed `activity` (T2) until `until` (wall-clock seconds): its live record
    /// ends and the snooze is kept, in one record, before the card leaves the glass.
    func snoozed(_ activity: NookActivity, module: NookModuleID, until: Double) {
        appending { state in
            let id = activity.id
            let enqueuedAt = state.content.live[id]?.enqueuedAt ?? wallClock()
            if state.content.live.removeValue(forKey: id) != nil {
                state.content.liveBytes -= state.content.recordBytes.removeValue(forKey: id) ?? 0
            }
            dropSnooze(id, in: &state)
            let snooze = Snooze(entry: Entry(sequence: 1, module: module, activity: activity, enqueuedAt: enqueuedAt, wasShown: false), until: until)
            state.content.snoozed[id] = snooze
            let record = JournalRecord.snoozed(snooze).encoded()
            guard state.append(record) else { return }
            state.content.bytes += record.count
            state.content.liveBytes += record.count
            state.content.snoozeBytes[id] = record.count
        }
    }

    /// The snooze of `id` is over without the card coming back. Idempotent.
    func unsnoozed(_ id: NookActivityID) {
        appending { state in
            guard state.content.snoozed[id] != nil else { return }
            dropSnooze(id, in: &state)
            append(JournalRecord.unsnoozed(id).encoded(), of: nil, to: &state)
            if state.content.outgrown { state.rewriteWanted = true }
        }
    }

    /// An app set or updated in place (A1): its whole record again, which replaces the last.
    func appSet(_ entry: NookAppShelf.Entry) {
        appsSet([entry])
    }

    /// Apps set in one step: one record for all of them (an array is restored whole or not at
    /// all), each app's share of its bytes counted live until the app is set again or removed.
    func appsSet(_ entries: [NookAppShelf.Entry]) {
        guard !entries.isEmpty else { return }
        appending { state in
            for entry in entries {
                let name = entry.app.name
                state.content.liveBytes -= state.content.appBytes.removeValue(forKey: name) ?? 0
                state.content.apps[name] = entry
            }
            let record = (entries.count == 1 ? JournalRecord.appSet(entries[0]) : JournalRecord.appsSet(entries)).encoded()
            guard state.append(record) else { return }
            state.content.bytes += record.count
            state.content.liveBytes += record.count
            for (index, entry) in entries.enumerated() {
                // The record's bytes split among its apps, the remainder to the first.
                state.content.appBytes[entry.app.name] = record.count / entries.count + (index == 0 ? record.count % entries.count : 0)
            }
            if state.content.outgrown { state.rewriteWanted = true }
        }
    }

    /// An app removed (A1), by a request or by its lifetime. Idempotent.
    func appRemoved(_ name: String) {
        appending { state in
            guard state.content.apps.removeValue(forKey: name) != nil else { return }
            state.content.liveBytes -= state.content.appBytes.removeValue(forKey: name) ?? 0
            append(JournalRecord.appRemoved(name).encoded(), of: nil, to: &state)
            if state.content.outgrown { state.rewriteWanted = true }
        }
    }

    /// Cards snoozed now (for tests and `status`).
    var snoozedCount: Int { log.state.withLock { $0.content.snoozed.count } }

    private func dropSnooze(_ id: NookActivityID, in state: inout DurableLog<JournalContent>.State) {
        guard state.content.snoozed.removeValue(forKey: id) != nil else { return }
        state.content.liveBytes -= state.content.snoozeBytes.removeValue(forKey: id) ?? 0
    }

    /// Which arrival of `id` is live now: a request that is about to end an activity takes
    /// this first and passes it to ``ended(_:arrival:)``.
    func arrival(of id: NookActivityID) -> UInt64? {
        log.state.withLock { $0.content.live[id]?.sequence }
    }

    /// The activity a request ended, if it is still the arrival the request saw. A cancelled
    /// pending card is ended by its queue at once; by the time the request records the end
    /// itself, another client may have enqueued a new activity under the freed id, which must
    /// not be ended with it.
    func ended(_ id: NookActivityID, arrival: UInt64?) {
        appending { state in
            guard let arrival, state.content.live[id]?.sequence == arrival else { return }
            end(id, in: &state)
        }
    }

    private func appending(_ body: (inout DurableLog<JournalContent>.State) -> Void) {
        log.appending(body)
    }

    private func add(_ activity: NookActivity, module: NookModuleID, to state: inout DurableLog<JournalContent>.State) {
        guard state.content.live[activity.id] == nil else { return }
        // Back from its snooze, or its id taken by a newer card: either way the snooze is over.
        dropSnooze(activity.id, in: &state)
        let entry = Entry(sequence: state.content.nextSequence, module: module, activity: activity, enqueuedAt: wallClock(), wasShown: false)
        state.content.nextSequence += 1
        state.content.live[activity.id] = entry
        append(JournalRecord.added(entry).encoded(), of: activity.id, to: &state)
    }

    /// A live activity changed in place (U1): its record is written again under the same
    /// sequence number, which recovery reads as a replacement that keeps its place.
    private func update(_ activity: NookActivity, in state: inout DurableLog<JournalContent>.State) {
        guard var entry = state.content.live[activity.id] else { return }
        entry.activity = activity
        state.content.live[activity.id] = entry
        append(JournalRecord.added(entry).encoded(), of: activity.id, to: &state)
        if state.content.outgrown { state.rewriteWanted = true }
    }

    private func show(_ id: NookActivityID, in state: inout DurableLog<JournalContent>.State) {
        guard state.content.live[id] != nil else { return }
        state.content.live[id]?.wasShown = true
        append(JournalRecord.shown(id).encoded(), of: id, to: &state)
    }

    private func end(_ id: NookActivityID, in state: inout DurableLog<JournalContent>.State) {
        guard state.content.live.removeValue(forKey: id) != nil else { return }
        state.content.liveBytes -= state.content.recordBytes.removeValue(forKey: id) ?? 0
        append(JournalRecord.ended(id).encoded(), of: nil, to: &state)
        if state.content.outgrown { state.rewriteWanted = true }
    }

    /// The mark of everything recorded so far: pass it to ``settle(through:)``.
    var mark: UInt64 { log.mark }

    var liveCount: Int { log.state.withLock { $0.content.live.count } }

    /// Returns once the records up to `mark` are as safe as an answer needs: on stable storage
    /// (``JournalSync/ack``) or in the file (``JournalSync/interval``, so a crash of nookd still
    /// loses nothing answered). At once for a journal that is memory-only for now (it warned);
    /// then the result says why they are not safe, for the answer to say so (J1).
    @discardableResult
    func settle(through mark: UInt64) async -> String? {
        await log.wait(for: mark, durable: mode == .ack)
    }

    /// ``settle(through:)``, and as far for every history entry recorded by now (U4): an answer
    /// that says an activity ended (a cancel or dismiss of the card on the glass records its
    /// entry as it answers) leaves only once a crash, or under ``JournalSync/ack`` a power cut,
    /// keeps the entry. The two logs are written and synced at once, by their own threads. Only
    /// the journal's trouble is named in the answer; the history warns of its own.
    @discardableResult
    func settle(through mark: UInt64, with history: ActivityHistory) async -> String? {
        await withCheckedContinuation { (settled: CheckedContinuation<String?, Never>) in
            whenSettled(through: mark, with: history) { settled.resume(returning: $0) }
        }
    }

    /// ``settle(through:with:)`` as a call of `done`, on the thread of the log that settles last
    /// (a writer, right after its write or sync), or at once on this one when both are settled.
    func whenSettled(through mark: UInt64, with history: ActivityHistory, _ done: @escaping @Sendable (String?) -> Void) {
        let entries = history.log.mark
        let durable = mode == .ack
        // Both logs' answers in: the journal's reason (only its trouble is named), and whether it came.
        let left = Locked<(count: Int, unsaved: String?)>((2, nil))
        let arrived: @Sendable (_ unsaved: String?, _ isJournal: Bool) -> Void = { unsaved, isJournal in
            let last = left.withLock { left -> (Bool, String?) in
                if isJournal { left.unsaved = unsaved }
                left.count -= 1
                return (left.count == 0, left.unsaved)
            }
            if last.0 { done(last.1) }
        }
        log.whenSettled(mark, durable: durable) { arrived($0, true) }
        history.log.whenSettled(entries, durable: durable) { _ in arrived(nil, false) }
    }

    /// Has both writers write (and under ``JournalSync/ack`` sync) the records up to `mark` and
    /// the history's entries recorded by now at once, for answers about to wait for them (``DurableLog/hasten(_:durable:)``): the records
    /// do not sit out the write delay while the answers are made.
    func hastenSettling(through mark: UInt64, with history: ActivityHistory) {
        let durable = mode == .ack
        log.hasten(mark, durable: durable)
        history.log.hasten(history.log.mark, durable: durable)
    }

    /// Before a client hears of an event: an activity's arrival and its end are reported once
    /// their records (and an end's history entry) are settled, like the answers to the requests
    /// that made them (J1, U4).
    func settle(_ event: NookActivityEvent, with history: ActivityHistory) async {
        switch event.kind {
        case .enqueued, .updated, .hidden, .rejected: await settle(through: mark, with: history)
        case .animateIn, .presented, .animateOut, .requeued, .invoked: break
        }
    }

    /// Writes and syncs everything recorded, then stops the writer thread; nookd calls it on
    /// the way out, after the queues are quiet. Records after it are dropped.
    func finish() async { await log.finish() }

    /// As ``finish()``, but gives up waiting after `bound` (a disk that does not answer must not
    /// hold nookd past N2's two seconds with the display still taken); false if it gave up.
    func finish(within bound: Duration) async -> Bool { await log.finish(within: bound) }

    /// Appends one record; `id` names the live activity it belongs to (nil for an end, which a
    /// rewrite drops along with the activity's other records).
    private func append(_ line: [UInt8], of id: NookActivityID?, to state: inout DurableLog<JournalContent>.State) {
        guard state.append(line) else { return }
        state.content.bytes += line.count
        if let id {
            state.content.liveBytes += line.count
            state.content.recordBytes[id, default: 0] += line.count
        }
    }

    /// Wakes the writer thread unless a wake is already on its way.
    func kick() { log.kick() }

    var degraded: Bool { log.degraded }

    @Sendable static func realtime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
