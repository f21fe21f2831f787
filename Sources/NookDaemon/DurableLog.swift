#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import NookActivities
import NookSystem
import Synchronization

/// What one use of a ``DurableLog`` (the journal, the history) keeps in memory and how its
/// records become lines of the file. It lives under the log's lock beside the log's own state,
/// so that a change and the record of it are one step.
protocol DurableLogContent: Sendable {
    associatedtype Record: Sendable
    /// Every record a rewrite of the file keeps, oldest first: taken under the lock when the
    /// writer starts a rewrite; records appended after it go to the new file after the rename.
    mutating func recordsToKeep() -> ArraySlice<Record>
    /// The file's lines for `records`, made on the writer thread outside the lock.
    static func lines(_ records: ArraySlice<Record>) -> DurableLines
    /// Under the lock, once `records` are in the file: appended, or (`rewrite`) the whole new
    /// file. True asks for a rewrite (the file holds too much that is no longer kept).
    mutating func wrote(_ records: ArraySlice<Record>, as lines: DurableLines, rewrite: Bool) -> Bool
    /// What a rewrite saved, for the warning that the file is writable again: `3 activities`.
    var savedSummary: String { get }
}

/// The bytes of some records for the file, and each one's body (its JSON) where a use keeps it.
struct DurableLines {
    var bytes: [UInt8] = []
    var bodies: [[UInt8]] = []
}

/// An append log that survives a crash or a power cut: one line per record (`CRC32 JSON\n`),
/// written and synced by one writer thread, which alone touches the file (SPEC J1, J2, U4).
///
/// Records are appended in memory, under the lock, by whoever makes the change; the writer
/// writes what has collected (at once when someone waits for it, else within `writeDelay`),
/// syncs it (at once for a waiter that asks for stable storage, else within a second of the
/// first unsynced write) and then releases the waiters. Requests arriving while a sync is in
/// flight share the next one (group commit). A rewrite (asked for by the use, or after a
/// failure) writes every kept record to `PATH.new`, syncs it, renames it over the log and syncs
/// the directory (``DurableFile/replace(_:with:syncer:label:warn:)``).
///
/// A full disk, one behaviour for every use: a write cut short is truncated back, so the file
/// never ends in a torn record; a failed write or sync makes the log memory-only, with one
/// warning, and releases every waiter (answers say why their records are not saved); a rewrite
/// of everything kept is tried ten seconds later, and once more at stop; records made while a
/// memory-only log is being rewritten start another rewrite.
final class DurableLog<Content: DurableLogContent>: Sendable {
    typealias Syncer = DurableFile.Syncer

    /// How one use names itself and paces its writes.
    struct Settings: Sendable {
        /// Starts every warning and failure: `journal`, `history`.
        var label: String
        /// What a memory-only log keeps, in its warning: `activities`, `the history`.
        var keeping: String
        /// A file larger than this is not nookd's (``DurableFile/refusal(of:label:limit:)``).
        var maximumBytes: Int
        /// How long records nobody waits for may stay in memory, so that a burst of them is
        /// one write (records an answer waits for go at once).
        var writeDelay: Double
    }

    struct Waiter {
        var mark: UInt64
        /// On stable storage, or only written to the file.
        var durable: Bool
        /// Called outside the lock once the records are there (or never will be).
        var done: @Sendable () -> Void
    }

    struct State: Sendable {
        var content: Content
        /// The log, open for appending; nil while memory-only, before a first rewrite, or stopped.
        var file: FileDescriptor?
        /// Records not yet written, in order.
        var pending: [Content.Record] = []
        /// Monotonic seconds of the oldest record in `pending`.
        var pendingSince: Double?
        /// Records appended so far, ever: a record's mark is this count just after it.
        var appended: UInt64 = 0
        /// Marks in the file, and on stable storage.
        var written: UInt64 = 0
        var durable: UInt64 = 0
        var waiters: [Waiter] = []
        /// Marks to write, and to sync, at once with nobody waiting (``hasten(_:durable:)``):
        /// written or synced when the written or durable mark reaches them.
        var writeWanted: UInt64 = 0
        var syncWanted: UInt64 = 0
        /// Monotonic seconds of the first write not yet synced.
        var unsyncedSince: Double?
        var rewriteWanted = false
        var degradedSince: Double?
        /// Why the log is memory-only (set with ``degradedSince``).
        var problem: String?
        var started = false
        var stopping = false
        var stopped = false
        /// A memory-only log is rewritten once more when nookd stops.
        var finalRewriteTried = false

        /// Appends a record for the file: false when it stays in memory only (the log is
        /// memory-only for now, or not running). Counted whenever the log runs, so that a
        /// rewrite knows whether anything came while it ran.
        @discardableResult
        mutating func append(_ record: Content.Record) -> Bool {
            guard started, !stopped else { return false }
            appended += 1
            guard degradedSince == nil else { return false }
            pending.append(record)
            return true
        }

        /// Asks for a rewrite of everything kept; the mark to wait for (durable) before it is
        /// on disk, or 0 when the log never started.
        mutating func rewrite() -> UInt64 {
            guard started else { return 0 }
            rewriteWanted = true
            appended += 1
            return appended
        }
    }

    /// Nil: memory only, nothing is ever written.
    let path: String?
    let settings: Settings
    let state: Locked<State>
    let warn: @Sendable (String) -> Void
    let monotonic: @Sendable () -> Double
    let syncer: Syncer
    /// Wakes the writer thread; signalled once per burst of work, however many records.
    let work = DispatchSemaphore(value: 0)
    let kicked = Atomic<Bool>(false)
    let writerDone = DispatchSemaphore(value: 0)

    init(path: String?, content: Content, settings: Settings, warn: @escaping @Sendable (String) -> Void,
         monotonic: @escaping @Sendable () -> Double, syncer: @escaping Syncer) {
        self.path = path
        self.settings = settings
        state = Locked(State(content: content))
        self.warn = warn
        self.monotonic = monotonic
        self.syncer = syncer
    }

    // MARK: Start-up

    /// Why nookd must not start with this path, or nil (see ``DurableFile``).
    func refusal() -> String? {
        path.flatMap { DurableFile.refusal(of: $0, label: settings.label, limit: settings.maximumBytes) }
    }

    /// The file at the path as recovery reads it (``DurableFile/contents(of:limit:noFollow:)``).
    func contents(limit: Int? = nil) -> DurableFile.Contents {
        guard let path else { return .missing }
        return DurableFile.contents(of: path, limit: limit ?? settings.maximumBytes)
    }

    /// Renames a file recovery could not use to `PATH.corrupt-TIME`; the warnings say what
    /// happened. Only a regular file is nookd's to move (the start refused anything else; this
    /// guards against one swapped in since).
    func setAside(now: Double) -> [String] {
        guard let path else { return [] }
        guard let info = try? fileStatus(path, followingLinks: false), info.st_mode & S_IFMT == S_IFREG else { return [] }
        let aside = path + ".corrupt-\(Int(now))"
        do throws(SystemCallError) {
            try renameFile(path, to: aside)
            return ["\(settings.label) \(path): set aside as \(aside)"]
        } catch {
            return ["\(settings.label) \(path): 'rename' to \(aside) failed: \(error.errno)"]
        }
    }

    /// Starts the log with a fresh file holding what the content keeps, written and synced (with
    /// its directory) before this returns, so nothing recovered is lost to a cut right after.
    /// A file that cannot be made leaves the log memory-only.
    func startRewriting() {
        guard let path else { return }
        state.withLock { state in
            let records = state.content.recordsToKeep()
            let lines = Content.lines(records)
            switch DurableFile.replace(path, with: lines.bytes, syncer: syncer, label: settings.label, warn: warn) {
            case .success(let file):
                state.file = file
                _ = state.content.wrote(records, as: lines, rewrite: true)
            case .failure(let problem):
                degrade(&state, problem.description)
            }
            state.started = true
        }
        startThread(named: "nookd.\(settings.label)") { self.writerLoop() }
    }

    /// Starts the log appending to `file` (the file as recovery found it), or with a rewrite by
    /// the writer thread first (nil: missing, or damaged).
    func start(appendingTo file: FileDescriptor?) {
        guard path != nil else { return }
        state.withLock { state in
            state.file = file
            if file == nil { state.rewriteWanted = true }
            state.started = true
        }
        startThread(named: "nookd.\(settings.label)") { self.writerLoop() }
        kick()
    }

    /// A path swapped for something not nookd's since the start's check: nothing is written.
    func startStopped() {
        state.withLock { state in (state.started, state.stopping, state.stopped) = (true, true, true) }
    }

    // MARK: Recording

    /// Changes the state under the lock (the use's content and the records of the change). The
    /// writer is woken only for the first record of a batch (it then writes within the write
    /// delay) or for a rewrite, not once per record: a burst of a hundred records costs it one
    /// wake-up, or none when a request waits for them anyway.
    func appending<T: Sendable>(_ body: (inout State) -> T) -> T {
        let (result, wake) = state.withLock { state -> (T, Bool) in
            let wasEmpty = state.pending.isEmpty
            let rewriteWanted = state.rewriteWanted
            let result = body(&state)
            if wasEmpty, !state.pending.isEmpty { state.pendingSince = monotonic() }
            return (result, (wasEmpty && !state.pending.isEmpty) || (!rewriteWanted && state.rewriteWanted))
        }
        if wake { kick() }
        return result
    }

    /// The mark of everything recorded so far.
    var mark: UInt64 { state.withLock { $0.appended } }

    var degraded: Bool { state.withLock { $0.degradedSince != nil } }

    /// Returns once the records up to `mark` are on stable storage (`durable`) or in the file.
    /// At once for a log that is memory-only for now (it warned), stopped or never started;
    /// then the result says why they are not saved, for the answer to say so (J1).
    func wait(for mark: UInt64, durable: Bool) async -> String? {
        await withCheckedContinuation { (settled: CheckedContinuation<String?, Never>) in
            whenSettled(mark, durable: durable) { settled.resume(returning: $0) }
        }
    }

    /// ``wait(for:durable:)`` as a call of `done`: at once on this thread when the records are
    /// there already, else on the writer's thread right after the write or sync that puts them
    /// there (outside the lock), with no task to schedule between the sync and the answer.
    func whenSettled(_ mark: UInt64, durable: Bool, _ done: @escaping @Sendable (String?) -> Void) {
        guard mark > 0 else { return done(nil) }
        let finish: @Sendable () -> Void = { [self] in done(unsaved(through: mark, durable: durable)) }
        let ready = state.withLock { state -> Bool in
            let reached = durable ? state.durable : state.written
            // Memory-only (degraded, stopped, never started): nothing more will be written.
            if reached >= mark || state.degradedSince != nil || state.stopped || !state.started { return true }
            state.waiters.append(Waiter(mark: mark, durable: durable, done: finish))
            return false
        }
        if ready { finish() } else { kick(force: true) }
    }

    /// Has the writer write (and, `durable`, sync) the records up to `mark` at once, as for a
    /// waiter, with nobody to call: a request whose answers will wait for its records sets them
    /// on their way while the answers are made. One mark, however often it is asked (a client's
    /// flood costs no memory), and no wake when they are there or on their way already.
    func hasten(_ mark: UInt64, durable: Bool) {
        let wake = state.withLock { state -> Bool in
            guard state.started, !state.stopped, state.degradedSince == nil,
                  mark > (durable ? max(state.durable, state.syncWanted) : max(state.written, state.writeWanted)) else { return false }
            state.writeWanted = max(state.writeWanted, mark)
            if durable { state.syncWanted = mark }
            return true
        }
        if wake { kick() }
    }

    /// Why the records up to `mark` are not where an answer needs them, or nil when they are.
    private func unsaved(through mark: UInt64, durable: Bool) -> String? {
        state.withLock { state in
            if (durable ? state.durable : state.written) >= mark { return nil }
            if state.degradedSince != nil { return state.problem ?? "the \(settings.label) cannot be written" }
            return state.stopped ? "nookd is stopping and its \(settings.label) is closed" : "nookd runs without its \(settings.label)"
        }
    }

    /// Writes and syncs everything recorded, then stops the writer thread; nookd calls it on the
    /// way out, after the queues are quiet. Records after it stay in memory.
    func finish() async {
        _ = await wait(for: mark, durable: true)
        // Without a start there is no writer thread to stop.
        guard state.withLock({ state -> Bool in
            defer { state.stopping = true }
            return state.started && !state.stopping
        }) else { return }
        work.signal()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            startThread(named: "nookd.\(settings.label).end") { self.writerDone.wait(); done.resume() }
        }
    }

    /// As ``finish()``, but gives up waiting after `bound` (a disk that does not answer must not
    /// hold nookd past N2's two seconds with the display still taken); false if it gave up.
    func finish(within bound: Duration) async -> Bool {
        await Self.bounded(bound) { await self.finish() }
    }

    /// Runs `body`; true if it returned within `bound`, false if the wait gave up (it runs on).
    static func bounded(_ bound: Duration, _ body: @escaping @Sendable () async -> Void) async -> Bool {
        let waiting = Locked<CheckedContinuation<Bool, Never>?>(nil)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            waiting.withLock { $0 = continuation }
            Task {
                await body()
                waiting.withLock { $0.take() }?.resume(returning: true)
            }
            Task {
                try? await Task.sleep(for: bound)
                waiting.withLock { $0.take() }?.resume(returning: false)
            }
        }
    }

    /// Wakes the writer thread unless a wake is already on its way.
    func kick(force: Bool = false) {
        if force || !kicked.exchange(true, ordering: .acquiringAndReleasing) { work.signal() }
    }

    /// Memory only from now until a rewrite succeeds; whoever waits is released by the caller
    /// (the warning says why their records are not on disk).
    func degrade(_ state: inout State, _ problem: String) {
        if state.degradedSince == nil {
            warn("\(settings.label): \(problem); keeping \(settings.keeping) in memory only until it can be written again")
        }
        state.problem = problem
        state.degradedSince = monotonic()
        state.rewriteWanted = true
        state.pending = []
        state.pendingSince = nil
        state.file = nil
    }
}
