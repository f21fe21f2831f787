#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookProtocol
import Synchronization

/// Every activity that has not ended, kept on disk so a crash or restart loses none (SPEC Q16,
/// N2; issue 8).
///
/// An append log: one line per record, `CRC32 JSON\n`. The adds of a burst of pipelined
/// enqueues are written together by ``flush()``, which the socket server runs before any answer
/// becomes visible to a client, so a `kill -9` at any instant leaves every acknowledged activity
/// in the page cache and at most a torn last line; `fdatasync` runs at most once a second for power
/// loss. When the log grows past ``compactionBytes`` and twice what is live, the live records are
/// written to a new file that replaces the log by `rename(2)` (fsynced first). A write that fails
/// (a full disk) degrades to memory with a warning; compaction retries every ten seconds.
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
    }

    static let compactionBytes = 256 * 1024
    /// A journal larger than this is not read (capacity × modules of records is far less).
    static let maximumBytes = 64 * 1024 * 1024

    private struct State {
        var fd: Int32 = -1
        var live: [NookActivityID: Entry] = [:]
        var ended: Set<NookActivityID> = []
        var endedOrder: [NookActivityID] = []
        var nextSequence: UInt64 = 1
        var bytes = 0
        /// Bytes of the records of activities still live: what a rewrite would keep.
        var liveBytes = 0
        var recordBytes: [NookActivityID: Int] = [:]
        var lastSync: Double = 0
        var dirty = false
        var degradedSince: Double?
        /// Records not yet written: adds wait here for ``flush()``.
        var pending: [UInt8] = []
    }

    let path: String
    private let state = Mutex(State())
    private let warn: @Sendable (String) -> Void
    private let wallClock: @Sendable () -> Double

    init(path: String, warn: @escaping @Sendable (String) -> Void, wallClock: @escaping @Sendable () -> Double = ActivityJournal.realtime) {
        self.path = path
        self.warn = warn
        self.wallClock = wallClock
    }

    deinit {
        state.withLock { if $0.fd >= 0 { close($0.fd) } }
    }

    // MARK: Start-up

    /// Reads the journal left by the last run, then starts a fresh one holding what is still live.
    /// A torn last record is dropped; a corrupt journal is renamed aside (`.corrupt-TIME`) after
    /// taking the records before the damage. Expired activities are reported, not returned.
    func recover() -> Recovery {
        var recovery = Recovery()
        let now = wallClock()
        switch Self.readFile(path) {
        case .missing:
            break
        case .failed(let problem):
            recovery.warnings.append("journal \(path): \(problem); starting without it")
            setAside(&recovery)
        case .contents(let bytes):
            var records: [String: Entry] = [:]
            var order: [String] = []
            let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() where !line.isEmpty {
                let isLast = index == lines.count - 1
                switch JournalRecord.decode(line) {
                case .failure(let problem):
                    if isLast {
                        recovery.warnings.append("journal \(path): dropped a torn last record (\(problem)); the process died while writing it")
                    } else {
                        recovery.warnings.append("journal \(path): line \(index + 1) is damaged (\(problem)); kept the \(records.count) activities before it")
                        setAside(&recovery)
                    }
                case .success(.added(let entry)):
                    let key = entry.activity.id.description
                    if records[key] == nil { order.append(key) }
                    records[key] = entry
                    continue
                case .success(.shown(let id)):
                    records[id.description]?.wasShown = true
                    continue
                case .success(.ended(let id)):
                    records[id.description] = nil
                    continue
                }
                break
            }
            for key in order {
                guard var entry = records[key] else { continue }
                if let expiresAfter = entry.activity.expiresAfter, !entry.wasShown {
                    let remaining = expiresAfter - Duration.nookSeconds(max(0, now - entry.enqueuedAt))!
                    guard remaining > .zero else { recovery.expired.append(entry); continue }
                    entry.activity.expiresAfter = remaining
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
            rewrite(&state)
        }
        return recovery
    }

    private func setAside(_ recovery: inout Recovery) {
        let aside = path + ".corrupt-\(Int(wallClock()))"
        if rename(path, aside) == 0 {
            recovery.warnings.append("journal \(path): set aside as \(aside)")
        } else {
            recovery.warnings.append("journal \(path): 'rename' to \(aside) failed: (\(errno)) \(String(cString: strerror(errno)))")
        }
    }

    // MARK: Recording

    /// An accepted activity; it reaches the file with the next ``flush()`` (or any other
    /// record), which must come before the client hears it was accepted. Idempotent.
    func added(_ activity: NookActivity, module: NookModuleID) {
        state.withLock { state in
            guard state.live[activity.id] == nil, !state.ended.contains(activity.id) else { return }
            let entry = Entry(sequence: state.nextSequence, module: module, activity: activity, enqueuedAt: wallClock(), wasShown: false)
            state.nextSequence += 1
            state.live[activity.id] = entry
            append(JournalRecord.added(entry).encoded(), of: activity.id, to: &state, deferred: true)
        }
    }

    /// Writes the adds not yet written, in one `write(2)`.
    func flush() {
        state.withLock { state in
            guard !state.pending.isEmpty else { return }
            writePending(&state, now: wallClock())
        }
    }

    /// The activity took the glass.
    func shown(_ id: NookActivityID) {
        state.withLock { state in
            guard state.live[id] != nil else { return }
            state.live[id]?.wasShown = true
            append(JournalRecord.shown(id).encoded(), of: id, to: &state)
        }
    }

    /// The activity's final event: it never comes back.
    func ended(_ id: NookActivityID) {
        state.withLock { state in
            // An end may overtake the add of its request; remember it so the add is skipped.
            state.ended.insert(id)
            state.endedOrder.append(id)
            if state.endedOrder.count > 8192 {
                for old in state.endedOrder.prefix(4096) { state.ended.remove(old) }
                state.endedOrder.removeFirst(4096)
            }
            guard state.live.removeValue(forKey: id) != nil else { return }
            state.liveBytes -= state.recordBytes.removeValue(forKey: id) ?? 0
            append(JournalRecord.ended(id).encoded(), of: nil, to: &state)
            if state.bytes > Self.compactionBytes && state.bytes > 2 * state.liveBytes { rewrite(&state) }
        }
    }

    /// Flushes to the disk; nookd calls it on the way out.
    func sync() {
        state.withLock { state in
            writePending(&state, now: wallClock())
            if state.fd >= 0, state.dirty { _ = fdatasync(state.fd); state.dirty = false }
        }
    }

    var liveCount: Int { state.withLock { $0.live.count } }

    /// Appends one record, written at once after any pending ones unless `deferred`; `id` names
    /// the live activity it belongs to (nil for an end, which a rewrite drops along with the
    /// activity's other records).
    private func append(_ line: [UInt8], of id: NookActivityID?, to state: inout State, deferred: Bool = false) {
        let now = wallClock()
        if let since = state.degradedSince {
            // Memory only until a rewrite of everything live succeeds.
            if now - since >= 10 { rewrite(&state) }
            return
        }
        guard state.fd >= 0 else { return }
        state.pending += line
        state.bytes += line.count
        if let id {
            state.liveBytes += line.count
            state.recordBytes[id, default: 0] += line.count
        }
        if !deferred { writePending(&state, now: now) }
    }

    private func writePending(_ state: inout State, now: Double) {
        guard state.fd >= 0, !state.pending.isEmpty else { return }
        defer { state.pending.removeAll(keepingCapacity: state.pending.count <= 65536) }
        if let problem = Self.writeAll(state.fd, state.pending) {
            degrade(&state, "'write' to \(path) failed: \(problem)", at: now)
            return
        }
        state.dirty = true
        if now - state.lastSync >= 1 {
            _ = fdatasync(state.fd)
            state.lastSync = now
            state.dirty = false
        }
    }

    /// Writes every live record to `PATH.new`, syncs it and renames it over the journal.
    private func rewrite(_ state: inout State) {
        let now = wallClock()
        let temporary = path + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { degrade(&state, "'open' of \(temporary) failed: \(Self.errnoText())", at: now); return }
        var bytes: [UInt8] = []
        var recordBytes: [NookActivityID: Int] = [:]
        for entry in state.live.values.sorted(by: { $0.sequence < $1.sequence }) {
            // The card on the glass keeps its mark, so it still goes back first after a crash.
            let record = JournalRecord.added(entry).encoded() + (entry.wasShown ? JournalRecord.shown(entry.activity.id).encoded() : [])
            recordBytes[entry.activity.id] = record.count
            bytes += record
        }
        if let problem = Self.writeAll(fd, bytes) {
            close(fd)
            unlink(temporary)
            degrade(&state, "'write' to \(temporary) failed: \(problem)", at: now)
            return
        }
        guard fsync(fd) == 0, rename(temporary, path) == 0 else {
            let problem = Self.errnoText()
            close(fd)
            unlink(temporary)
            degrade(&state, "replacing \(path) failed: \(problem)", at: now)
            return
        }
        Self.syncDirectory(of: path)
        if state.fd >= 0 { close(state.fd) }
        _ = lseek(fd, 0, SEEK_END)
        state.fd = fd
        state.pending = []  // every live record is in the new file
        state.bytes = bytes.count
        state.liveBytes = bytes.count
        state.recordBytes = recordBytes
        state.lastSync = now
        state.dirty = false
        if state.degradedSince != nil {
            warn("journal \(path): writable again; \(state.live.count) activities saved")
            state.degradedSince = nil
        }
    }

    private func degrade(_ state: inout State, _ problem: String, at now: Double) {
        if state.degradedSince == nil {
            warn("journal: \(problem); keeping activities in memory only until it can be written again")
        }
        state.degradedSince = now
        state.pending = []  // memory only now; the next successful rewrite saves everything live
    }

    // MARK: Files

    private enum FileContents { case missing, failed(String), contents([UInt8]) }

    private static func readFile(_ path: String) -> FileContents {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return errno == ENOENT ? .missing : .failed("'open' failed: \(errnoText())") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count < 0 { if errno == EINTR { continue }; return .failed("'read' failed: \(errnoText())") }
            if count == 0 { return .contents(bytes) }
            bytes += buffer[..<count]
            if bytes.count > maximumBytes { return .failed("larger than \(maximumBytes / 1024 / 1024) MiB") }
        }
    }

    /// nil, or why not every byte was written.
    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> String? {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count < 0 { if errno == EINTR { continue }; return errnoText() }
            written += count
        }
        return nil
    }

    private static func syncDirectory(of path: String) {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let fd = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 { _ = fsync(fd); close(fd) }
    }

    static func errnoText() -> String { "(\(errno)) \(String(cString: strerror(errno)))" }

    @Sendable static func realtime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
