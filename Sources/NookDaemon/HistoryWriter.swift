#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import NookProtocol
import NookSystem
import Synchronization

/// The history's writer thread: the only code that writes, syncs or replaces the history file.
/// Entries are encoded here too, so the queues' recording stays a few pointer moves.
extension ActivityHistory {
    private enum Step {
        case wait(until: Double?)
        case write([HistoryEntry], mark: UInt64, file: FileDescriptor, thenSync: Bool)
        case sync(mark: UInt64, file: FileDescriptor)
        case compact(ArraySlice<HistoryEntry>, mark: UInt64, wasDegraded: Bool)
        case stop
    }

    func writerLoop() {
        guard let path else { return }
        while true {
            kicked.store(false, ordering: .releasing)
            let step = state.withLock { nextStep(&$0, now: monotonic()) }
            switch step {
            case .wait(let deadline):
                if let deadline {
                    let seconds = max(0, deadline - monotonic())
                    _ = work.wait(timeout: .now() + .nanoseconds(Int(min(seconds, 60) * 1e9)))
                } else {
                    work.wait()
                }
            case .write(let entries, let mark, let file, let thenSync):
                let (bytes, bodies) = Self.lines(entries)
                if let problem = DurableFile.append(file, bytes, path: path) {
                    settle(releasingAll: true) { degrade(&$0, problem) }
                    continue
                }
                settle { state in
                    keep(bodies, of: entries, in: &state)
                    state.written = max(state.written, mark)
                    state.fileRecords += entries.count
                    if state.unsyncedSince == nil { state.unsyncedSince = monotonic() }
                    if state.fileRecords > 2 * state.kept.count + Self.compactionSlack { state.compactionWanted = true }
                }
                if thenSync { sync(file, through: mark) }
            case .sync(let mark, let file):
                sync(file, through: mark)
            case .compact(let entries, let mark, let wasDegraded):
                let (bytes, bodies) = Self.lines(entries)
                let replaced = DurableFile.replace(path, with: bytes, syncer: syncer, label: "history", warn: warn)
                settle(releasingAll: true) { state in
                    keep(bodies, of: entries, in: &state)
                    switch replaced {
                    case .success(let file):
                        state.file = file
                        state.fileRecords = entries.count
                        state.written = max(state.written, mark)
                        state.durable = max(state.durable, mark)
                        if state.written == state.durable { state.unsyncedSince = nil }
                        if state.degradedSince != nil {
                            warn("history \(path): writable again; \(state.kept.count) entries saved")
                            state.degradedSince = nil
                            state.problem = nil
                        }
                        // Entries that ended while a memory-only history was being rewritten
                        // are in memory only: the file misses them until it is rewritten again.
                        if wasDegraded, state.kept.last?.number != entries.last?.number { state.compactionWanted = true }
                    case .failure(let problem):
                        degrade(&state, problem.description)
                    }
                }
            case .stop:
                settle(releasingAll: true) { state in
                    state.file = nil
                    state.stopped = true
                }
                writerDone.signal()
                return
            }
        }
    }

    private func nextStep(_ state: inout State, now: Double) -> Step {
        let wantsDurable = state.waiters.contains { $0.durable && $0.mark > state.durable }
        if let since = state.degradedSince {
            let retryAt = since + ActivityJournal.retryAfterSeconds
            if now >= retryAt { return compaction(&state) }
            // On the way out one more rewrite is tried at once: the file left behind otherwise
            // holds the entries from before the disk filled (a clear undone, later ends lost).
            if state.stopping && !state.finalRewriteTried {
                state.finalRewriteTried = true
                return compaction(&state)
            }
            return state.stopping ? .stop : .wait(until: retryAt)
        }
        if state.compactionWanted { return compaction(&state) }
        if !state.unwritten.isEmpty, let file = state.file {
            defer { state.unwritten.removeAll(keepingCapacity: state.unwritten.count <= 4096) }
            let due = state.unsyncedSince.map { now >= $0 + 1 } ?? false
            return .write(state.unwritten, mark: state.appended, file: file, thenSync: wantsDurable || state.stopping || due)
        }
        if state.written > state.durable, let file = state.file {
            let deadline = (state.unsyncedSince ?? now) + 1
            if wantsDurable || state.stopping || now >= deadline { return .sync(mark: state.written, file: file) }
            return .wait(until: deadline)
        }
        return state.stopping ? .stop : .wait(until: nil)
    }

    /// The file's lines for `entries`, and each entry's JSON (kept for `history` answers).
    private static func lines(_ entries: some Collection<HistoryEntry>) -> (file: [UInt8], bodies: [[UInt8]]) {
        var file: [UInt8] = []
        var bodies: [[UInt8]] = []
        bodies.reserveCapacity(entries.count)
        for entry in entries {
            let body = entry.json.serializedBytes
            file += CRC32.line(body: body)
            bodies.append(body)
        }
        return (file, bodies)
    }

    /// Keeps the JSON of the entries that are still kept (one may have been dropped or
    /// cleared while it was being written).
    private func keep(_ bodies: [[UInt8]], of entries: some Collection<HistoryEntry>, in state: inout State) {
        for (entry, body) in zip(entries, bodies) { state.keepJSON(body, of: entry.number) }
    }

    /// Takes every kept entry for a new file; entries recorded meanwhile wait in `unwritten`
    /// and go to the new file after the rename.
    private func compaction(_ state: inout State) -> Step {
        state.compactionWanted = false
        state.unwritten = []
        return .compact(state.kept, mark: state.appended, wasDegraded: state.degradedSince != nil)
    }

    private func sync(_ file: FileDescriptor, through mark: UInt64) {
        let result = syncer(file.rawValue, false)
        settle(releasingAll: result != 0) { state in
            guard result == 0 else {
                // The kernel may have dropped the dirty pages: rewrite rather than sync again.
                degrade(&state, "'fdatasync' of \(path ?? "the history") failed: \(ActivityJournal.errnoText(result))")
                return
            }
            state.durable = max(state.durable, mark)
            if state.durable >= state.written { state.unsyncedSince = nil }
        }
    }

    /// Memory only from now until a rewrite succeeds.
    private func degrade(_ state: inout State, _ problem: String) {
        if state.degradedSince == nil {
            warn("history: \(problem); keeping the history in memory only until it can be written again")
        }
        state.problem = problem
        state.degradedSince = monotonic()
        state.compactionWanted = true
        state.unwritten = []
        state.file = nil
    }

    /// Changes the state, then resumes (outside the lock) the waiters whose marks it reached,
    /// or every waiter when the history is now memory-only or stopped.
    private func settle(releasingAll: Bool = false, _ change: (inout State) -> Void) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            change(&state)
            var ready: [CheckedContinuation<Void, Never>] = []
            let everyone = releasingAll && (state.degradedSince != nil || state.stopped)
            state.waiters.removeAll { waiter in
                guard everyone || waiter.mark <= (waiter.durable ? state.durable : state.written) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        ready.forEach { $0.resume() }
    }
}
