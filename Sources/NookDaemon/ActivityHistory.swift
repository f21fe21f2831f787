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
/// answer waits for the disk. A use of the ``DurableLog``, as the journal is: one line per
/// ``HistoryEntry``, written as entries come and synced within a second (a crash of nookd loses
/// nothing written; a power cut the last second at most). When the log holds more than twice
/// the entries kept (the bounds drop old ones) or after a `clear`, it is rewritten. Start-up
/// drops a torn or zero-filled tail, and any damaged line, with a warning; the entries are
/// independent, so the rest is kept.
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
        /// As it is now (updates included), for an end a request records before the queue
        /// reports it (``ended(_:arrival:how:)``).
        var activity: NookActivity
        /// Which arrival of its id this is (see ``arrival(of:)``).
        var arrival: UInt64
        /// What became of its sound (B3), once it slid in with one.
        var sound: String? = nil
    }

    typealias State = DurableLog<HistoryContent>.State

    /// Nil keeps the history in memory only (`history.path = "none"`, or no state directory).
    var path: String? { log.path }
    let log: DurableLog<HistoryContent>
    var state: Locked<State> { log.state }
    let wallClock: @Sendable () -> Double

    /// A history file larger than this is set aside, not read (20,000 entries of a few KiB).
    static let maximumBytes = 256 * 1024 * 1024
    /// Lines beyond twice the kept entries that a log may hold before it is rewritten.
    static let compactionSlack = 64

    init(path: String?, bounds: Bounds = Bounds(), warn: @escaping @Sendable (String) -> Void,
         wallClock: @escaping @Sendable () -> Double = ActivityJournal.realtime,
         monotonic: @escaping @Sendable () -> Double = { MonotonicClock.seconds },
         syncer: @escaping DurableFile.Syncer = DurableFile.systemSync) {
        self.wallClock = wallClock
        // Entries nobody waits for are written as they come: the history has no write delay.
        log = DurableLog(path: path, content: HistoryContent(bounds: bounds),
                         settings: .init(label: "history", keeping: "the history", maximumBytes: Self.maximumBytes, writeDelay: 0),
                         warn: warn, monotonic: monotonic, syncer: syncer)
    }

    // MARK: Start-up

    /// Reads what the last runs kept and starts the writer thread; returns warnings about what
    /// could not be read. Without a path there is nothing to read or write.
    func start() -> [String] {
        var warnings: [String] = []
        guard let path else { return warnings }
        if let refusal = refusal() {
            // Checked at start; a path swapped since is left alone: memory only.
            warnings.append("\(refusal); keeping the history in memory only")
            log.startStopped()
            return warnings
        }
        var loaded: [HistoryEntry] = []
        var lines = 0
        var wantsRewrite = false
        // A file larger than the bound needs is read from its end: its newest entries are kept.
        let readLimit = min(Self.maximumBytes, 2 * bounds.maxBytes + (1 << 20))
        var contents = log.contents(limit: readLimit)
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
            warnings += log.setAside(now: wallClock())
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
            var content = HistoryContent(bounds: state.content.bounds)
            content.entries = loaded.sorted { $0.number < $1.number }
            // Not the file's own bytes: a line that decodes need not be in the encoder's exact
            // form (another nookd's, or edited), and an answer must say what the entry is.
            content.sharedNumbers = Set(zip(content.entries, content.entries.dropFirst()).filter { $0.number == $1.number }.map(\.0.number))
            content.nextNumber = (content.entries.last?.number ?? 0) + 1
            content.keptBytes = content.entries.reduce(0) { $0 + Self.size(of: $1) }
            content.fileRecords = lines
            state.content = content
            prune(&state, now: now)
        }
        var file: FileDescriptor?
        if !wantsRewrite {
            do throws(SystemCallError) {
                file = try FileDescriptor.open(path, O_WRONLY | O_APPEND | O_NOFOLLOW)
            } catch {
                warnings.append("history \(path): \(error); rewriting it")
            }
        }
        log.start(appendingTo: file)
        return warnings
    }

    /// Why nookd must not start with this history path, or nil (see ``DurableFile``).
    func refusal() -> String? { log.refusal() }

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
        log.appending { state in
            var ended = false
            for event in events {
                switch event.kind {
                case .enqueued:
                    let seed = state.content.seeds.removeValue(forKey: event.id)
                    state.content.live[event.id] = Live(module: module, enqueuedAt: seed?.enqueuedAt ?? now, shownAt: nil, onGlass: seed?.onGlass ?? false,
                                                        activity: event.activity, arrival: state.content.nextArrival)
                    state.content.nextArrival += 1
                case .updated:
                    state.content.live[event.id]?.activity = event.activity
                case .animateIn:
                    guard state.content.live[event.id] != nil else { continue }
                    if state.content.live[event.id]?.shownAt == nil { state.content.live[event.id]?.shownAt = now }
                    state.content.live[event.id]?.onGlass = true
                // Refused as invalid: never accepted (a duplicate id names a live activity).
                case .rejected(.invalid): break
                case .hidden(let reason): ended = end(event, how: reason.rawValue, now: now, in: &state) || ended
                case .rejected(let reason): ended = end(event, how: reason.description, now: now, in: &state) || ended
                case .presented, .animateOut, .requeued, .invoked: break
                }
            }
            if ended { prune(&state, now: now) }
        }
    }

    static func matters(_ event: NookActivityEvent) -> Bool {
        switch event.kind {
        case .enqueued, .animateIn, .hidden, .rejected, .updated: true
        case .presented, .animateOut, .requeued, .invoked: false
        }
    }

    /// An activity that is about to be restored from the journal keeps its first enqueue time
    /// and whether it had been on the glass before the restart.
    func restoring(_ id: NookActivityID, enqueuedAt: Double, wasShown: Bool) {
        state.withLock { $0.content.seeds[id] = (enqueuedAt, wasShown) }
    }

    /// The restore is over: seeds of activities that did not come back are forgotten.
    func restored() {
        state.withLock { $0.content.seeds = [:] }
    }

    /// An activity the journal held that expired while nookd was down.
    func expiredWhileDown(_ activity: NookActivity, module: NookModuleID, enqueuedAt: Double) {
        endedAway(activity, module: module, enqueuedAt: enqueuedAt, how: .expired)
    }

    /// An activity that ended outside any queue (expired while nookd was down, a card of the
    /// journal or a snoozed card refused on its way back), recorded as a queue's end for that
    /// reason is.
    func endedAway(_ activity: NookActivity, module: NookModuleID, enqueuedAt: Double? = nil, wasShown: Bool = false,
                   how reason: NookRejectionReason) {
        guard !activity.isTransient else { return }
        let now = wallClock()
        log.appending { state in
            // Not while a card with its id is live: that one's end is its own entry.
            guard state.content.live[activity.id] == nil else { return }
            // Nor an end recorded before a crash: an answer waits for the history entries made
            // before it, not for every journal record behind them, so the journal may still hold
            // a card whose end the history synced. The same arrival is the same enqueue time,
            // as the journal and the history each noted it (a moment apart).
            if let enqueuedAt, state.content.entries[state.content.head...].contains(where: {
                $0.activity.id == activity.id && abs($0.enqueuedAt - enqueuedAt) < 1
            }) { return }
            state.content.live[activity.id] = Live(module: module, enqueuedAt: enqueuedAt ?? now, shownAt: nil, onGlass: wasShown,
                                                   activity: activity, arrival: 0)
            let event = NookActivityEvent(activity: activity, kind: .rejected(reason), at: .origin, module: module)
            guard end(event, how: reason.description, now: now, in: &state) else { return }
            prune(&state, now: now)
        }
    }

    /// Which arrival of `id` is live now: a request that is about to end an activity takes
    /// this first and passes it to ``ended(_:arrival:how:)``.
    func arrival(of id: NookActivityID) -> UInt64? {
        state.withLock { $0.content.live[id]?.arrival }
    }

    /// A request (cancel, dismiss) ended the card on the glass, `how` it ends (the request's
    /// reason, or the one it was already ending for): its entry is recorded now, not after its
    /// slide out, so that the request's answer, which waits for it, never leaves before a
    /// crash would keep it. The queue's own report of the end later finds it recorded. Nothing
    /// if `arrival` is no longer live: the end was recorded already, and an id taken by a newer
    /// activity since is not ended with it.
    func ended(_ id: NookActivityID, arrival: UInt64?, how: String) {
        guard let arrival else { return }
        let now = wallClock()
        log.appending { state in
            guard let live = state.content.live[id], live.arrival == arrival else { return }
            let event = NookActivityEvent(activity: live.activity, kind: .animateOut, at: .origin, module: live.module)
            guard end(event, how: how, now: now, in: &state) else { return }
            prune(&state, now: now)
        }
    }

    /// B3: what became of a live activity's sound (`played`, `silenced (quiet hours)`), kept for
    /// its entry. Memory only until the entry is written: a restart in between forgets it.
    func noteSound(_ note: String, for id: NookActivityID) {
        state.withLock { $0.content.live[id]?.sound = note }
    }

    /// Returns once the entries up to `mark` (``DurableLog/mark``) are on stable storage
    /// (`durable`) or in the file; at once for a history kept in memory only, or one that
    /// cannot be written now (it warned).
    func settle(through mark: UInt64, durable: Bool) async {
        _ = await log.wait(for: mark, durable: durable)
    }

    private func end(_ event: NookActivityEvent, how: String, now: Double, in state: inout State) -> Bool {
        // Not accepted (refused at enqueue as queueFull), or already ended.
        guard let live = state.content.live.removeValue(forKey: event.id) else { return false }
        // The activity as it last was: an update may have made it transient, or not.
        guard !event.activity.isTransient else { return false }
        let entry = HistoryEntry(number: state.content.nextNumber, activity: event.activity, module: live.module.rawValue,
                                 enqueuedAt: live.enqueuedAt, shownAt: live.shownAt, endedAt: now, ending: how, onGlass: live.onGlass,
                                 sound: live.sound)
        state.content.nextNumber += 1
        state.content.entries.append(entry)
        state.content.keptBytes += Self.size(of: entry)
        // Memory-only while the file cannot be written: the rewrite that ends it takes every entry.
        state.append(entry)
        return true
    }

    /// Drops what is beyond the bounds, oldest first; asks for a rewrite once the file holds
    /// more than twice what is kept.
    private func prune(_ state: inout State, now: Double) {
        let oldest = now - state.content.bounds.maxAge
        while state.content.head < state.content.entries.count,
              state.content.entries.count - state.content.head > state.content.bounds.maxEntries || state.content.keptBytes > state.content.bounds.maxBytes
                || state.content.entries[state.content.head].endedAt < oldest {
            state.content.encoded[state.content.entries[state.content.head].number] = nil
            state.content.keptBytes -= Self.size(of: state.content.entries[state.content.head])
            state.content.head += 1
        }
        if state.content.head > 0, state.content.head * 2 >= state.content.entries.count {
            state.content.entries.removeFirst(state.content.head)
            state.content.head = 0
        }
        if path != nil, state.content.outgrown { state.rewriteWanted = true }
    }

    /// New bounds (SIGHUP); what is beyond them is dropped now.
    func setBounds(_ bounds: Bounds) {
        log.appending { state in
            state.content.bounds = bounds
            prune(&state, now: wallClock())
        }
    }

    var bounds: Bounds { state.withLock { $0.content.bounds } }

    // MARK: Reading

    /// The kept entries that pass `query`, oldest first (the newest `limit` of them), and how
    /// many are kept in all. The filtering runs outside the lock the queues record under.
    func query(_ query: HistoryQuery) -> (entries: [HistoryEntry], total: Int) {
        let now = wallClock()
        let (kept, maxAge) = state.withLock { state in
            prune(&state, now: now)
            return (state.content.kept, state.content.bounds.maxAge)
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
        let cached = state.withLock { state in entries.map { state.content.encoded[$0.number] } }
        var made: [(UInt64, [UInt8])] = []
        let bodies = zip(entries, cached).map { entry, bytes in
            if let bytes { return bytes }
            let body = entry.json.serializedBytes
            made.append((entry.number, body))
            return body
        }
        if !made.isEmpty {
            state.withLock { state in
                for (number, body) in made { state.content.keepJSON(body, of: number) }
            }
        }
        return bodies
    }

    /// The entry with that number, or the latest entry of that activity id.
    func entry(_ reference: HistoryReference) -> HistoryEntry? {
        let kept = state.withLock { state in
            prune(&state, now: wallClock())
            return state.content.kept
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
            let before = state.content.kept.count
            state.content.entries = uid.map { uid in state.content.kept.filter { $0.activity.sender?.uid != uid } } ?? []
            state.content.head = 0
            state.content.keptBytes = state.content.entries.reduce(0) { $0 + Self.size(of: $1) }
            let remaining = Set(state.content.entries.map(\.number))
            state.content.encoded = state.content.encoded.filter { remaining.contains($0.key) }
            return (before - state.content.entries.count, state.rewrite())
        }
        log.kick()
        return (removed, await log.wait(for: mark, durable: true))
    }

    /// Returns once everything recorded so far is in the file (so an entry a client saw
    /// survives a kill of nookd), or after `bound` (a stalled disk must not hold the answer).
    func settleWritten(within bound: Duration) async {
        let mark = log.mark
        _ = await DurableLog<HistoryContent>.bounded(bound) { _ = await self.log.wait(for: mark, durable: false) }
    }

    /// Writes and syncs what was recorded, then stops the writer thread, giving up after `bound`
    /// (N2's two seconds); false if it gave up.
    func finish(within bound: Duration) async -> Bool { await log.finish(within: bound) }

    func finish() async { await log.finish() }

    func kick() { log.kick() }

    var degraded: Bool { log.degraded }

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
                try? System.pread(file.rawValue, raw.baseAddress! + count, bytes - count, offset: off_t(start + count), subject: path)
            }) else { return nil }
            if read == 0 { break }
            count += read
        }
        guard let newline = buffer[..<count].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        return (Array(buffer[(newline + 1)..<count]), Int(info.st_size))
    }
}
