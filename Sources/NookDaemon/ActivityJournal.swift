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
/// none (SPEC Q16, N2, J1, J2; issues 8, 14, 25).
///
/// An append log: one line per record, `CRC32 JSON\n`. Records are appended in memory by
/// whoever changes the queues (adds and ends are recorded synchronously, from inside the queue
/// that emits them, see ``follow(_:module:)``), and written by one writer thread, which alone
/// touches the file: it writes what has collected, syncs it (``JournalSync/ack``: always;
/// ``JournalSync/interval``: within a second of the first unsynced write) and then releases
/// the requests waiting in ``settle(through:)``. Requests arriving while a sync is in flight
/// share the next one (group commit). Nothing else in nookd waits for the disk.
///
/// When the log grows past ``compactionBytes`` and twice what is live, the writer writes the
/// live records to a new file, syncs it, renames it over the log and syncs the directory. A
/// write or sync that fails (a full disk, EIO) degrades to memory with a warning; a rewrite is
/// retried ten seconds later.
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

    /// What start-up found in the journal.
    struct Recovery: Sendable {
        var entries: [Entry] = []
        var expired: [Entry] = []
        var warnings: [String] = []
        /// Why nookd must not start with this path (``DurableFile/refusal(of:label:limit:)``):
        /// nothing was read, written or started.
        var refusal: String?
    }

    /// What the writer thread does with a file descriptor to put it on stable storage:
    /// `fdatasync` (`full` false: the log) or `fsync` (`full` true: a new file, a directory).
    /// Returns 0 or the errno. Injected by tests to count and hold syncs.
    typealias Syncer = @Sendable (_ fd: Int32, _ full: Bool) -> Int32

    static let compactionBytes = 256 * 1024
    /// A journal larger than this is not read (capacity × modules of records is far less).
    static let maximumBytes = 64 * 1024 * 1024
    /// How long a journal that could not be written stays in memory before a rewrite is tried.
    static let retryAfterSeconds = 10.0
    /// How long records nobody waits for (a card taking the glass, a card's own end) may stay
    /// in memory, so that a burst of them is one write. Records an answer waits for go at once.
    static let writeDelay = 0.02

    /// A request waiting for its records.
    struct Waiter {
        var mark: UInt64
        /// On stable storage, or only written to the file.
        var durable: Bool
        var continuation: CheckedContinuation<Void, Never>
    }

    struct State {
        /// The log, open for appending; nil while memory-only or stopped.
        var file: FileDescriptor?
        var live: [NookActivityID: Entry] = [:]
        var nextSequence: UInt64 = 1
        var bytes = 0
        /// Bytes of the records of activities still live: what a rewrite would keep.
        var liveBytes = 0
        var recordBytes: [NookActivityID: Int] = [:]
        /// Records not yet written, in order.
        var pending: [UInt8] = []
        /// Records appended so far, ever: a record's mark is this count just after it.
        var appended: UInt64 = 0
        /// Marks in the file, and on stable storage.
        var written: UInt64 = 0
        var durable: UInt64 = 0
        var waiters: [Waiter] = []
        /// Monotonic seconds of the first write not yet synced (interval mode's deadline).
        var unsyncedSince: Double?
        /// Monotonic seconds of the oldest record in `pending`.
        var pendingSince: Double?
        var compactionWanted = false
        var degradedSince: Double?
        /// Why the journal is memory-only (set with ``degradedSince``).
        var problem: String?
        var started = false
        var stopping = false
        var stopped = false
        /// A memory-only journal is rewritten once more when nookd stops.
        var finalRewriteTried = false
    }

    let path: String
    let mode: JournalSync
    let state = Locked(State())
    let warn: @Sendable (String) -> Void
    let wallClock: @Sendable () -> Double
    let monotonic: @Sendable () -> Double
    let syncer: Syncer
    /// Wakes the writer thread; signalled once per burst of work, however many records.
    let work = DispatchSemaphore(value: 0)
    let kicked = Atomic<Bool>(false)
    let writerDone = DispatchSemaphore(value: 0)

    init(path: String, mode: JournalSync = .ack, warn: @escaping @Sendable (String) -> Void,
         wallClock: @escaping @Sendable () -> Double = ActivityJournal.realtime,
         monotonic: @escaping @Sendable () -> Double = { MonotonicClock.seconds },
         syncer: @escaping Syncer = ActivityJournal.systemSync) {
        self.path = path
        self.mode = mode
        self.warn = warn
        self.wallClock = wallClock
        self.monotonic = monotonic
        self.syncer = syncer
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
        switch DurableFile.contents(of: path, limit: Self.maximumBytes) {
        case .missing:
            break
        case .failed(let problem):
            recovery.warnings.append("journal \(path): \(problem); starting without it")
            setAside(&recovery)
        case .contents(let bytes):
            let scan = JournalScan(bytes)
            if let damage = scan.damage {
                recovery.warnings.append("journal \(path): \(damage.description(keptRecords: scan.records.count))")
                // Only what a power cut or a kill leaves is expected; anything else is kept aside.
                if !damage.torn { setAside(&recovery) }
            }
            var records: [String: Entry] = [:]
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
                case .shown(let id):
                    records[id.description]?.wasShown = true
                case .ended(let id):
                    records[id.description] = nil
                }
            }
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
        state.withLock { state in
            for (offset, entry) in recovery.entries.enumerated() {
                var renumbered = entry
                renumbered.sequence = UInt64(offset + 1)
                renumbered.wasShown = false
                state.live[entry.activity.id] = renumbered
            }
            state.nextSequence = UInt64(recovery.entries.count + 1)
            // Before any request: the fresh file (and its directory entry) is on stable storage
            // before nookd answers anything, so nothing restored is lost to a cut right after.
            let snapshot = Self.snapshot(of: state)
            switch replaceFile(with: snapshot.bytes) {
            case .success(let file):
                state.file = file
                state.bytes = snapshot.bytes.count
                state.liveBytes = snapshot.bytes.count
                state.recordBytes = snapshot.recordBytes
            case .failure(let problem):
                degrade(&state, problem.description)
            }
            state.started = true
        }
        startThread(named: "nookd.journal") { self.writerLoop() }
        return recovery
    }

    /// Why nookd must not start with this journal path, or nil (see ``DurableFile``).
    func refusal() -> String? {
        DurableFile.refusal(of: path, label: "journal", limit: Self.maximumBytes)
    }

    private func setAside(_ recovery: inout Recovery) {
        // Only a regular file is nookd's to move (the start refused anything else; this guards
        // against one swapped in since).
        guard let info = try? fileStatus(path, followingLinks: false), info.st_mode & S_IFMT == S_IFREG else { return }
        let aside = path + ".corrupt-\(Int(wallClock()))"
        do throws(SystemCallError) {
            try renameFile(path, to: aside)
            recovery.warnings.append("journal \(path): set aside as \(aside)")
        } catch {
            recovery.warnings.append("journal \(path): 'rename' to \(aside) failed: \(error.errno)")
        }
    }

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

    /// Which arrival of `id` is live now: a request that is about to end an activity takes
    /// this first and passes it to ``ended(_:arrival:)``.
    func arrival(of id: NookActivityID) -> UInt64? {
        state.withLock { $0.live[id]?.sequence }
    }

    /// The activity a request ended, if it is still the arrival the request saw. A cancelled
    /// pending card is ended by its queue at once; by the time the request records the end
    /// itself, another client may have enqueued a new activity under the freed id, which must
    /// not be ended with it.
    func ended(_ id: NookActivityID, arrival: UInt64?) {
        appending { state in
            guard let arrival, state.live[id]?.sequence == arrival else { return }
            end(id, in: &state)
        }
    }

    /// Appends under the lock. The writer is woken only for the first record of a batch (it
    /// then writes within ``writeDelay``) or for a compaction, not once per record: a burst of
    /// a hundred records costs it one wake-up, or none when a request waits for them anyway.
    private func appending(_ body: (inout State) -> Void) {
        let wake = state.withLock { state -> Bool in
            let wasEmpty = state.pending.isEmpty
            let compactionWanted = state.compactionWanted
            body(&state)
            if wasEmpty, !state.pending.isEmpty { state.pendingSince = monotonic() }
            return (wasEmpty && !state.pending.isEmpty) || (!compactionWanted && state.compactionWanted)
        }
        if wake { kick() }
    }

    private func add(_ activity: NookActivity, module: NookModuleID, to state: inout State) {
        guard state.live[activity.id] == nil else { return }
        let entry = Entry(sequence: state.nextSequence, module: module, activity: activity, enqueuedAt: wallClock(), wasShown: false)
        state.nextSequence += 1
        state.live[activity.id] = entry
        append(JournalRecord.added(entry).encoded(), of: activity.id, to: &state)
    }

    /// A live activity changed in place (U1): its record is written again under the same
    /// sequence number, which recovery reads as a replacement that keeps its place.
    private func update(_ activity: NookActivity, in state: inout State) {
        guard var entry = state.live[activity.id] else { return }
        entry.activity = activity
        state.live[activity.id] = entry
        append(JournalRecord.added(entry).encoded(), of: activity.id, to: &state)
        if state.bytes > Self.compactionBytes && state.bytes > 2 * state.liveBytes { state.compactionWanted = true }
    }

    private func show(_ id: NookActivityID, in state: inout State) {
        guard state.live[id] != nil else { return }
        state.live[id]?.wasShown = true
        append(JournalRecord.shown(id).encoded(), of: id, to: &state)
    }

    private func end(_ id: NookActivityID, in state: inout State) {
        guard state.live.removeValue(forKey: id) != nil else { return }
        state.liveBytes -= state.recordBytes.removeValue(forKey: id) ?? 0
        append(JournalRecord.ended(id).encoded(), of: nil, to: &state)
        if state.bytes > Self.compactionBytes && state.bytes > 2 * state.liveBytes { state.compactionWanted = true }
    }

    /// The mark of everything recorded so far: pass it to ``settle(through:)``.
    var mark: UInt64 { state.withLock { $0.appended } }

    var liveCount: Int { state.withLock { $0.live.count } }

    /// Returns once the records up to `mark` are as safe as an answer needs: on stable storage
    /// (``JournalSync/ack``) or in the file (``JournalSync/interval``, so a crash of nookd still
    /// loses nothing answered). At once for a journal that is memory-only for now (it warned);
    /// then the result says why they are not safe, for the answer to say so (J1).
    @discardableResult
    func settle(through mark: UInt64) async -> String? {
        await wait(for: mark, durable: mode == .ack)
    }

    /// Before a client hears of an event: an activity's arrival and its end are reported once
    /// their records are settled, like the answers to the requests that made them (J1).
    func settle(_ event: NookActivityEvent) async {
        switch event.kind {
        case .enqueued, .updated, .hidden, .rejected: await settle(through: mark)
        case .animateIn, .presented, .animateOut, .requeued, .invoked: break
        }
    }

    /// Writes and syncs everything recorded, then stops the writer thread; nookd calls it on
    /// the way out, after the queues are quiet. Records after it are dropped.
    /// As ``finish()``, but gives up waiting after `bound` (a disk that does not answer must not
    /// hold nookd past N2's two seconds with the display still taken); false if it gave up.
    func finish(within bound: Duration) async -> Bool {
        let waiting = Locked<CheckedContinuation<Bool, Never>?>(nil)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            waiting.withLock { $0 = continuation }
            Task {
                await self.finish()
                waiting.withLock { $0.take() }?.resume(returning: true)
            }
            Task {
                try? await Task.sleep(for: bound)
                waiting.withLock { $0.take() }?.resume(returning: false)
            }
        }
    }

    func finish() async {
        _ = await wait(for: mark, durable: true)
        // Without recover() there is no writer thread to stop.
        guard state.withLock({ state -> Bool in
            defer { state.stopping = true }
            return state.started && !state.stopping
        }) else { return }
        work.signal()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            startThread(named: "nookd.journal.end") { self.writerDone.wait(); done.resume() }
        }
    }

    private func wait(for mark: UInt64, durable: Bool) async -> String? {
        guard mark > 0 else { return nil }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                let reached = durable ? state.durable : state.written
                // Memory-only (degraded, stopped, never started): nothing more will be written.
                if reached >= mark || state.degradedSince != nil || state.stopped || !state.started { return true }
                state.waiters.append(Waiter(mark: mark, durable: durable, continuation: continuation))
                return false
            }
            if ready { continuation.resume() } else { kick(force: true) }
        }
        return state.withLock { state in
            if (durable ? state.durable : state.written) >= mark { return nil }
            if state.degradedSince != nil { return state.problem ?? "the journal cannot be written" }
            return state.stopped ? "nookd is stopping and its journal is closed" : "nookd runs without its journal"
        }
    }

    /// Appends one record; `id` names the live activity it belongs to (nil for an end, which a
    /// rewrite drops along with the activity's other records).
    private func append(_ line: [UInt8], of id: NookActivityID?, to state: inout State) {
        if let since = state.degradedSince {
            // Memory only until a rewrite of everything live succeeds.
            if monotonic() - since >= Self.retryAfterSeconds { state.compactionWanted = true }
            state.appended += 1
            return
        }
        guard state.file != nil, !state.stopped else { return }
        state.pending += line
        state.appended += 1
        state.bytes += line.count
        if let id {
            state.liveBytes += line.count
            state.recordBytes[id, default: 0] += line.count
        }
    }

    /// Wakes the writer thread unless a wake is already on its way.
    func kick(force: Bool = false) {
        if force || !kicked.exchange(true, ordering: .acquiringAndReleasing) { work.signal() }
    }

    /// Every live record, oldest first, with the bytes each activity has in it.
    static func snapshot(of state: State) -> (bytes: [UInt8], recordBytes: [NookActivityID: Int]) {
        var bytes: [UInt8] = []
        var recordBytes: [NookActivityID: Int] = [:]
        for entry in state.live.values.sorted(by: { $0.sequence < $1.sequence }) {
            // The card on the glass keeps its mark, so it still goes back first after a crash.
            let record = JournalRecord.added(entry).encoded() + (entry.wasShown ? JournalRecord.shown(entry.activity.id).encoded() : [])
            recordBytes[entry.activity.id] = record.count
            bytes += record
        }
        return (bytes, recordBytes)
    }

    /// Memory only from now until a rewrite succeeds; whoever waits is released (the warning
    /// says why their records are not on disk).
    func degrade(_ state: inout State, _ problem: String) {
        if state.degradedSince == nil {
            warn("journal: \(problem); keeping activities in memory only until it can be written again")
        }
        state.problem = problem
        state.degradedSince = monotonic()
        state.compactionWanted = true
        state.pending = []
        state.pendingSince = nil
    }

    var degraded: Bool { state.withLock { $0.degradedSince != nil } }

    // MARK: Files

    /// Replaces the journal with `bytes` (``DurableFile/replace(_:with:syncer:label:warn:)``);
    /// returns the new file, positioned at its end.
    func replaceFile(with bytes: [UInt8]) -> Result<FileDescriptor, JournalDamage> {
        DurableFile.replace(path, with: bytes, syncer: syncer, label: "journal", warn: warn)
    }

    /// nil, or why not every byte was written, naming `path` (the log keeps the descriptor of
    /// the file it was renamed from).
    static func writeAll(_ file: FileDescriptor, _ bytes: [UInt8], path: String) -> String? {
        var failure: SystemCallError?
        bytes.withUnsafeBytes { buffer in
            do throws(SystemCallError) { try file.writeAll(buffer) } catch { failure = error }
        }
        return failure.map { SystemCallError($0.call, errno: $0.errno, subject: path).description }
    }

    /// `(5) Input/output error` for a ``Syncer``'s result.
    static func errnoText(_ code: Int32) -> String { Errno(rawValue: code).description }

    @Sendable static func systemSync(_ fd: Int32, _ full: Bool) -> Int32 {
        switch systemCallResult({ full ? fsync(fd) : fdatasync(fd) }) {
        case .success: 0
        case .failure(let code): code.rawValue
        }
    }

    @Sendable static func realtime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
