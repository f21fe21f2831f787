#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import NookActivities
import NookProtocol
import NookSystem
import Synchronization

/// Every activity that ended, for `nookctl history` (SPEC U4, U5): what was shown while you
/// were away, when, from whom, and what you never saw.
///
/// The queues report each end synchronously (``follow(_:module:)``); recording one is a lock,
/// a dictionary look-up and an append in memory, so neither the display loop nor an enqueue's
/// answer waits for the disk. One writer thread alone touches the file, as the journal's does:
/// an append log of `CRC32 JSON\n` lines (one ``HistoryEntry`` each), written as entries come
/// and synced within a second (a crash of nookd loses nothing written; a power cut the last
/// second at most). When the log holds more than twice the entries kept (the bounds drop old
/// ones) or after a `clear`, the writer rewrites it: `PATH.new`, synced, renamed over the log,
/// the directory synced. A write that fails degrades to memory with a warning and a rewrite is
/// tried ten seconds later. Start-up drops a torn or zero-filled tail, and any damaged line,
/// with a warning; the entries are independent, so the rest is kept.
final class ActivityHistory: Sendable {
    /// How much is kept (`[history]`): at most `maxEntries` taking at most `maxBytes` (as the
    /// file's lines measure them), none older than `maxAge` seconds.
    struct Bounds: Hashable, Sendable {
        var maxEntries = 1000
        var maxAge: Double = 7 * 86_400
        /// A small board's share: a kept entry costs about twice its line in nookd's memory.
        var maxBytes = 4 << 20
        /// From 256 KiB: a bound below one large entry would keep nothing.
        static let bytesRange = (256 << 10)...(256 << 20)
        /// Up to 20,000: an entry may hold several KiB (a 512-character title, a 1024-character
        /// subtitle, an icon path), and every kept one is in nookd's memory.
        static let entriesRange = 1...20_000
    }

    /// An activity that has not ended: what its entry will need.
    struct Live {
        var module: NookModuleID
        var enqueuedAt: Double
        var shownAt: Double?
        var onGlass: Bool
    }

    struct Waiter {
        var mark: UInt64
        var durable: Bool
        var continuation: CheckedContinuation<Void, Never>
    }

    struct State {
        var bounds: Bounds
        /// Entries oldest first; the first `head` of them are dropped already (removed in bulk,
        /// so dropping one per end costs no shifting of the rest).
        var entries: [HistoryEntry] = []
        var head = 0
        /// ``ActivityHistory/size(of:)`` of the kept entries together.
        var keptBytes = 0
        /// The JSON of kept entries by number, as the writer thread encoded them for the file (or
        /// as a query first needed them): `history` answers are these bytes joined, not a tree
        /// built and serialized again per query (issue 17). Dropped with their entries.
        var encoded: [UInt64: [UInt8]] = [:]
        /// Numbers that more than one entry of a (hand-merged) file carries: never cached by
        /// number, or one entry's JSON would answer for the other.
        var sharedNumbers: Set<UInt64> = []
        var live: [NookActivityID: Live] = [:]
        /// Activities the journal restores: when they were first enqueued and whether they had
        /// been on the glass, before the restart.
        var seeds: [NookActivityID: (enqueuedAt: Double, onGlass: Bool)] = [:]
        var nextNumber: UInt64 = 1
        var file: FileDescriptor?
        /// Lines in the file, dropped entries included: what a rewrite would shed.
        var fileRecords = 0
        var unwritten: [HistoryEntry] = []
        /// Marks: changes appended so far, and those in the file and on stable storage.
        var appended: UInt64 = 0
        var written: UInt64 = 0
        var durable: UInt64 = 0
        var waiters: [Waiter] = []
        var unsyncedSince: Double?
        var compactionWanted = false
        var degradedSince: Double?
        var problem: String?
        var started = false
        var stopping = false
        var stopped = false
        /// A memory-only history is rewritten once more when nookd stops.
        var finalRewriteTried = false

        var kept: ArraySlice<HistoryEntry> { entries[head...] }

        /// Whether the entry with this number is kept (entries are in number order).
        func keeps(_ number: UInt64) -> Bool {
            var low = head, high = entries.count
            while low < high {
                let middle = (low + high) / 2
                if entries[middle].number < number { low = middle + 1 } else { high = middle }
            }
            return low < entries.count && entries[low].number == number
        }

        /// Keeps an entry's JSON for `history` answers, unless the entry was dropped or cleared
        /// meanwhile or its number is one that several entries carry.
        mutating func keepJSON(_ body: [UInt8], of number: UInt64) {
            guard keeps(number), !sharedNumbers.contains(number) else { return }
            encoded[number] = body
        }
    }

    /// Nil keeps the history in memory only (`history.path = "none"`, or no state directory).
    let path: String?
    let state: Locked<State>
    let warn: @Sendable (String) -> Void
    let wallClock: @Sendable () -> Double
    let monotonic: @Sendable () -> Double
    let syncer: ActivityJournal.Syncer
    let work = DispatchSemaphore(value: 0)
    let kicked = Atomic<Bool>(false)
    let writerDone = DispatchSemaphore(value: 0)

    /// A history file larger than this is set aside, not read (20,000 entries of a few KiB).
    static let maximumBytes = 256 * 1024 * 1024
    /// Lines beyond twice the kept entries that a log may hold before it is rewritten.
    static let compactionSlack = 64

    init(path: String?, bounds: Bounds = Bounds(), warn: @escaping @Sendable (String) -> Void,
         wallClock: @escaping @Sendable () -> Double = ActivityJournal.realtime,
         monotonic: @escaping @Sendable () -> Double = { MonotonicClock.seconds },
         syncer: @escaping ActivityJournal.Syncer = ActivityJournal.systemSync) {
        self.path = path
        state = Locked(State(bounds: bounds))
        self.warn = warn
        self.wallClock = wallClock
        self.monotonic = monotonic
        self.syncer = syncer
    }

    // MARK: Start-up

    /// Reads what the last runs kept and starts the writer thread; returns warnings about what
    /// could not be read. Without a path, only marks the history started.
    func start() -> [String] {
        var warnings: [String] = []
        guard let path else {
            state.withLock { $0.started = true }
            return warnings
        }
        if let refusal = refusal() {
            // Checked at start; a path swapped since is left alone: memory only.
            warnings.append("\(refusal); keeping the history in memory only")
            state.withLock { state in (state.started, state.stopping, state.stopped) = (true, true, true) }
            return warnings
        }
        var loaded: [HistoryEntry] = []
        var lines = 0
        var wantsRewrite = false
        // A file larger than the bound needs is read from its end: its newest entries are kept.
        let readLimit = min(Self.maximumBytes, 2 * bounds.maxBytes + (1 << 20))
        var contents = DurableFile.contents(of: path, limit: readLimit)
        if case .failed = contents, let (tail, size) = Self.tail(of: path, bytes: readLimit) {
            warnings.append("history \(path): \(size) bytes, more than history.max_bytes (\(bounds.maxBytes)) keeps; read its last \(readLimit) bytes and kept the newest entries that fit")
            contents = .contents(tail)
            wantsRewrite = true
        }
        switch contents {
        case .missing:
            // Created by the writer, with its directory entry synced.
            wantsRewrite = true
        case .failed(let problem):
            warnings.append("history \(path): \(problem); starting an empty history")
            // Only a regular file is nookd's to move.
            let aside = path + ".corrupt-\(Int(wallClock()))"
            if let info = try? fileStatus(path, followingLinks: false), info.st_mode & S_IFMT == S_IFREG, (try? renameFile(path, to: aside)) != nil {
                warnings.append("history \(path): set aside as \(aside)")
            }
            wantsRewrite = true
        case .contents(let bytes):
            let scan = HistoryScan(bytes)
            loaded = scan.entries
            lines = scan.lines
            if let damage = scan.damage { warnings.append("history \(path): \(damage)") }
            // A tail without its newline would glue the next line onto it: rewrite first.
            wantsRewrite = wantsRewrite || scan.damage != nil || (bytes.last.map { $0 != UInt8(ascii: "\n") } ?? false)
        }
        let now = wallClock()
        state.withLock { state in
            state.entries = loaded.sorted { $0.number < $1.number }
            // Not the file's own bytes: a line that decodes need not be in the encoder's exact
            // form (another nookd's, or edited), and an answer must say what the entry is.
            state.sharedNumbers = Set(zip(state.entries, state.entries.dropFirst()).filter { $0.number == $1.number }.map(\.0.number))
            state.nextNumber = (state.entries.last?.number ?? 0) + 1
            state.keptBytes = state.entries.reduce(0) { $0 + Self.size(of: $1) }
            state.fileRecords = lines
            prune(&state, now: now)
            if !wantsRewrite {
                do throws(SystemCallError) {
                    state.file = try FileDescriptor.open(path, O_WRONLY | O_APPEND | O_NOFOLLOW)
                } catch {
                    warnings.append("history \(path): \(error); rewriting it")
                    wantsRewrite = true
                }
            }
            if wantsRewrite { state.compactionWanted = true }
            state.started = true
        }
        startThread(named: "nookd.history") { self.writerLoop() }
        kick()
        return warnings
    }

    /// Why nookd must not start with this history path, or nil (see ``DurableFile``).
    func refusal() -> String? {
        path.flatMap { DurableFile.refusal(of: $0, label: "history", limit: Self.maximumBytes) }
    }

    // MARK: Recording

    /// Records the ends of `queue`'s activities as the queue reports them, synchronously, so
    /// that an end is never lost to a task that had not run yet.
    func follow(_ queue: NookActivityQueue, module: NookModuleID) -> NookObservation {
        queue.observe { [weak self] events in self?.record(events, module: module) }
    }

    /// One change of a queue: arrivals are remembered, the first slide-in is noted, and each
    /// end becomes an entry (unless the activity is transient).
    func record(_ events: [NookActivityEvent], module: NookModuleID) {
        guard events.contains(where: Self.matters) else { return }
        let now = wallClock()
        let wake = state.withLock { state -> Bool in
            var ended = false
            for event in events {
                switch event.kind {
                case .enqueued:
                    let seed = state.seeds.removeValue(forKey: event.id)
                    state.live[event.id] = Live(module: module, enqueuedAt: seed?.enqueuedAt ?? now, shownAt: nil, onGlass: seed?.onGlass ?? false)
                case .animateIn:
                    guard state.live[event.id] != nil else { continue }
                    if state.live[event.id]?.shownAt == nil { state.live[event.id]?.shownAt = now }
                    state.live[event.id]?.onGlass = true
                // Refused as invalid: never accepted (a duplicate id names a live activity).
                case .rejected(.invalid): break
                case .hidden(let reason): ended = end(event, how: reason.rawValue, now: now, in: &state) || ended
                case .rejected(let reason): ended = end(event, how: reason.description, now: now, in: &state) || ended
                case .presented, .animateOut, .requeued, .updated, .invoked: break
                }
            }
            if ended { prune(&state, now: now) }
            return ended && path != nil
        }
        if wake { kick() }
    }

    static func matters(_ event: NookActivityEvent) -> Bool {
        switch event.kind {
        case .enqueued, .animateIn, .hidden, .rejected: true
        case .presented, .animateOut, .requeued, .updated, .invoked: false
        }
    }

    /// An activity that is about to be restored from the journal keeps its first enqueue time
    /// and whether it had been on the glass before the restart.
    func restoring(_ id: NookActivityID, enqueuedAt: Double, wasShown: Bool) {
        state.withLock { $0.seeds[id] = (enqueuedAt, wasShown) }
    }

    /// The restore is over: seeds of activities that did not come back are forgotten.
    func restored() {
        state.withLock { $0.seeds = [:] }
    }

    /// An activity the journal held that expired while nookd was down.
    func expiredWhileDown(_ activity: NookActivity, module: NookModuleID, enqueuedAt: Double) {
        guard !activity.isTransient else { return }
        let now = wallClock()
        let wake = state.withLock { state -> Bool in
            state.live[activity.id] = Live(module: module, enqueuedAt: enqueuedAt, shownAt: nil, onGlass: false)
            let event = NookActivityEvent(activity: activity, kind: .rejected(.expired), at: .origin, module: module)
            guard end(event, how: "expired", now: now, in: &state) else { return false }
            prune(&state, now: now)
            return path != nil
        }
        if wake { kick() }
    }

    private func end(_ event: NookActivityEvent, how: String, now: Double, in state: inout State) -> Bool {
        // Not accepted (refused at enqueue as queueFull), or already ended.
        guard let live = state.live.removeValue(forKey: event.id) else { return false }
        // The activity as it last was: an update may have made it transient, or not.
        guard !event.activity.isTransient else { return false }
        let entry = HistoryEntry(number: state.nextNumber, activity: event.activity, module: live.module.rawValue,
                                 enqueuedAt: live.enqueuedAt, shownAt: live.shownAt, endedAt: now, ending: how, onGlass: live.onGlass)
        state.nextNumber += 1
        state.entries.append(entry)
        state.keptBytes += Self.size(of: entry)
        // Memory-only while the file cannot be written: the rewrite that ends it takes every entry.
        if path != nil, !state.stopped, state.degradedSince == nil {
            state.unwritten.append(entry)
            state.appended += 1
        }
        return true
    }

    /// Drops what is beyond the bounds, oldest first; asks for a rewrite once the file holds
    /// more than twice what is kept.
    private func prune(_ state: inout State, now: Double) {
        let oldest = now - state.bounds.maxAge
        while state.head < state.entries.count,
              state.entries.count - state.head > state.bounds.maxEntries || state.keptBytes > state.bounds.maxBytes
                || state.entries[state.head].endedAt < oldest {
            state.encoded[state.entries[state.head].number] = nil
            state.keptBytes -= Self.size(of: state.entries[state.head])
            state.head += 1
        }
        if state.head > 0, state.head * 2 >= state.entries.count {
            state.entries.removeFirst(state.head)
            state.head = 0
        }
        if path != nil, state.fileRecords > 2 * state.kept.count + Self.compactionSlack { state.compactionWanted = true }
    }

    /// New bounds (SIGHUP); what is beyond them is dropped now.
    func setBounds(_ bounds: Bounds) {
        let wake = state.withLock { state -> Bool in
            state.bounds = bounds
            prune(&state, now: wallClock())
            return state.compactionWanted
        }
        if wake { kick() }
    }

    var bounds: Bounds { state.withLock { $0.bounds } }

    // MARK: Reading

    /// The kept entries that pass `query`, oldest first (the newest `limit` of them), and how
    /// many are kept in all. The filtering runs outside the lock the queues record under.
    func query(_ query: HistoryQuery) -> (entries: [HistoryEntry], total: Int) {
        let now = wallClock()
        let (kept, maxAge) = state.withLock { state in
            prune(&state, now: now)
            return (state.kept, state.bounds.maxAge)
        }
        // In place: `filter` hands its closure a copy of each entry, and copying ten thousand
        // entries (a retain per string) was a quarter of a query's time; only matches are copied.
        var matching: [HistoryEntry] = []
        kept.withUnsafeBufferPointer { entries in
            for index in entries.indices where entries[index].endedAt >= now - maxAge && query.admits(entries[index], now: now) {
                matching.append(entries[index])
            }
        }
        if let limit = query.limit, matching.count > limit { matching.removeFirst(matching.count - limit) }
        return (matching, kept.count)
    }

    /// The JSON of each of `entries` (from ``query(_:)``), in order: the writer thread's encoding
    /// where it has made one, made here (and kept) for entries not written yet or for a
    /// history kept in memory only.
    func encodedJSON(of entries: [HistoryEntry]) -> [[UInt8]] {
        let cached = state.withLock { state in entries.map { state.encoded[$0.number] } }
        var made: [(UInt64, [UInt8])] = []
        let bodies = zip(entries, cached).map { entry, bytes in
            if let bytes { return bytes }
            let body = entry.json.serializedBytes
            made.append((entry.number, body))
            return body
        }
        if !made.isEmpty {
            state.withLock { state in
                for (number, body) in made { state.keepJSON(body, of: number) }
            }
        }
        return bodies
    }

    /// The entry with that number, or the latest entry of that activity id.
    func entry(_ reference: HistoryReference) -> HistoryEntry? {
        let kept = state.withLock { state in
            prune(&state, now: wallClock())
            return state.kept
        }
        switch reference {
        case .number(let number): return kept.first { $0.number == number }
        case .id(let id): return kept.last { $0.activity.id == id }
        }
    }

    /// Removes every entry (`uid` nil) or those sent by `uid`, from memory and, before it
    /// returns, from the file (rewritten without them and synced). Returns how many went, and
    /// why the file still holds them (it could not be rewritten: a full disk), if it does.
    func clear(sentBy uid: UInt32?) async -> (removed: Int, unsaved: String?) {
        let (removed, mark) = state.withLock { state -> (Int, UInt64) in
            let before = state.kept.count
            state.entries = uid.map { uid in state.kept.filter { $0.activity.sender?.uid != uid } } ?? []
            state.head = 0
            state.keptBytes = state.entries.reduce(0) { $0 + Self.size(of: $1) }
            let remaining = Set(state.entries.map(\.number))
            state.encoded = state.encoded.filter { remaining.contains($0.key) }
            guard path != nil else { return (before - state.entries.count, 0) }
            state.compactionWanted = true
            state.appended += 1
            return (before - state.entries.count, state.appended)
        }
        kick()
        await wait(for: mark, durable: true)
        let unsaved = state.withLock { state -> String? in
            guard state.durable < mark else { return nil }
            if state.degradedSince != nil { return state.problem ?? "the history file cannot be written" }
            return state.stopped ? "nookd is stopping and its history file is closed" : nil
        }
        return (removed, unsaved)
    }

    /// Returns once everything recorded so far is in the file (so an entry a client saw
    /// survives a kill of nookd), or after `bound` (a stalled disk must not hold the answer).
    func settleWritten(within bound: Duration) async {
        let mark = state.withLock { $0.appended }
        _ = await bounded(bound) { await self.wait(for: mark, durable: false) }
    }

    /// Writes and syncs what was recorded, then stops the writer thread, giving up after `bound`
    /// (N2's two seconds); false if it gave up.
    func finish(within bound: Duration) async -> Bool {
        await bounded(bound) { await self.finish() }
    }

    func finish() async {
        await wait(for: state.withLock { $0.appended }, durable: true)
        guard state.withLock({ state -> Bool in
            defer { state.stopping = true }
            return state.started && !state.stopping && path != nil
        }) else { return }
        work.signal()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            startThread(named: "nookd.history.end") { self.writerDone.wait(); done.resume() }
        }
    }

    private func bounded(_ bound: Duration, _ body: @escaping @Sendable () async -> Void) async -> Bool {
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

    func wait(for mark: UInt64, durable: Bool) async {
        guard mark > 0 else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                let reached = durable ? state.durable : state.written
                if reached >= mark || state.degradedSince != nil || state.stopped || !state.started { return true }
                state.waiters.append(Waiter(mark: mark, durable: durable, continuation: continuation))
                return false
            }
            if ready { continuation.resume() } else { kick() }
        }
    }

    func kick() {
        if !kicked.exchange(true, ordering: .acquiringAndReleasing) { work.signal() }
    }

    var degraded: Bool { state.withLock { $0.degradedSince != nil } }

    /// About the bytes of the entry's line in the file (its JSON, checksum and newline), from its
    /// texts as JSON escapes them and a fixed share for the rest: cheap enough to take for
    /// every end under the lock.
    static func size(of entry: HistoryEntry) -> Int {
        let activity = entry.activity
        let texts = [activity.title, activity.subtitle, activity.coalescingKey, activity.systemImage, activity.sender?.name, entry.module]
        return texts.reduce(400) { total, text in total + (text.map(escapedBytes) ?? 0) }
    }

    /// Bytes of `text` inside a JSON string: control characters take up to six, quotes and
    /// backslashes two.
    static func escapedBytes(_ text: String) -> Int {
        text.utf8.reduce(0) { count, byte in count + (byte < 0x20 ? 6 : byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") ? 2 : 1) }
    }

    /// The last `bytes` of the regular file at `path` from its first whole line on, and the
    /// file's size, if it is larger than `bytes`; nil otherwise or when it cannot be read.
    static func tail(of path: String, bytes: Int) -> ([UInt8], Int)? {
        guard let file = try? FileDescriptor.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY), let info = try? file.status(),
              info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) > bytes else { return nil }
        var buffer = [UInt8](repeating: 0, count: bytes)
        var count = 0
        let start = Int(info.st_size) - bytes
        while count < bytes {
            guard let read = buffer.withUnsafeMutableBytes({ raw in
                try? systemCall("pread", subject: path) { pread(file.rawValue, raw.baseAddress! + count, bytes - count, off_t(start + count)) }
            }) else { return nil }
            if read == 0 { break }
            count += read
        }
        guard let newline = buffer[..<count].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        return (Array(buffer[(newline + 1)..<count]), Int(info.st_size))
    }
}

/// The readable entries of a history file, and what could not be read.
struct HistoryScan {
    var entries: [HistoryEntry] = []
    /// Non-empty lines, readable or not.
    var lines = 0
    var damage: String?

    init(_ bytes: [UInt8]) {
        var offset = 0
        var lineNumber = 0
        var bad = 0
        var first: (line: Int, problem: String)?
        var lastComplete = true
        var lastBad = 0
        var zeros = 0
        while offset < bytes.count {
            lineNumber += 1
            let end = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            defer { offset = min(end + 1, bytes.count) }
            guard end > offset else { continue }
            lines += 1
            switch Self.decode(bytes[offset..<end]) {
            case .success(let entry): entries.append(entry)
            case .failure(let problem):
                bad += 1
                lastBad = lineNumber
                lastComplete = end < bytes.count
                zeros += bytes[offset..<end].reduce(0) { $0 + ($1 == 0 ? 1 : 0) }
                if first == nil { first = (lineNumber, problem.description) }
            }
        }
        guard let first else { return }
        let atEnd = lastBad == lineNumber && bad == 1
        // Only a last line without its newline was cut short; one written whole that cannot be
        // read was changed by something else (an edit, another nookd, a disk error).
        let cause = zeros > 0 ? "zero-filled, as a power cut leaves a file whose length reached the disk before its data"
            : atEnd && !lastComplete ? "cut short: nookd was killed, or the power cut, while it was written"
            : "\(first.problem): written whole, so not a power cut but a change by something else than this nookd"
        damage = atEnd
            ? "dropped an unreadable last line (\(cause)); kept the \(entries.count) entries before it"
            : "dropped \(bad) unreadable line\(bad == 1 ? "" : "s") from line \(first.line) (\(cause)); kept the \(entries.count) readable entries"
    }

    static func decode(_ line: some Collection<UInt8>) -> Result<HistoryEntry, JournalDamage> {
        let bytes = Array(line)
        guard bytes.count > 9, bytes[8] == UInt8(ascii: " ") else { return .failure(JournalDamage("too short for an entry")) }
        let body = bytes[9...]
        guard String(decoding: bytes[..<8], as: UTF8.self) == CRC32.hex(CRC32.checksum(body)) else {
            return .failure(JournalDamage("checksum mismatch"))
        }
        do {
            return .success(try HistoryEntry(json: try JSONValue.parse(body)))
        } catch let error as ProtocolError {
            return .failure(JournalDamage("not an entry: \(error)"))
        } catch {
            return .failure(JournalDamage("not JSON: \(error)"))
        }
    }
}
