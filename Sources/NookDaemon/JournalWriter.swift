#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import NookSystem
import Synchronization

/// The journal's writer thread: the only code that writes, syncs or replaces the file, so the
/// queues, the display loop and the request handlers only ever append to memory and wait.
extension ActivityJournal {
    private enum Step {
        /// Sleep until kicked, or until the monotonic deadline (an interval sync is due).
        case wait(until: Double?)
        case write([UInt8], mark: UInt64, file: FileDescriptor, thenSync: Bool)
        case sync(mark: UInt64, file: FileDescriptor)
        case compact([UInt8], mark: UInt64)
        case stop
    }

    func writerLoop() {
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
            case .write(let bytes, let mark, let file, let thenSync):
                if let problem = DurableFile.append(file, bytes, path: path) {
                    settleAll { degrade(&$0, problem) }
                    continue
                }
                settle { state in
                    state.written = max(state.written, mark)
                    if state.unsyncedSince == nil { state.unsyncedSince = monotonic() }
                }
                if thenSync { sync(file, through: mark) }
            case .sync(let mark, let file):
                sync(file, through: mark)
            case .compact(let bytes, let mark):
                let replaced = replaceFile(with: bytes)
                settleAll { state in
                    switch replaced {
                    case .success(let file):
                        state.file = file
                        state.written = max(state.written, mark)
                        state.durable = max(state.durable, mark)
                        if state.written == state.durable { state.unsyncedSince = nil }
                        if state.degradedSince != nil {
                            warn("journal \(path): writable again; \(state.live.count) activities saved")
                            state.degradedSince = nil
                            state.problem = nil
                            // Records made while this rewrite ran were kept in memory only, not
                            // in `pending`: the file misses them until it is rewritten again.
                            if state.appended > mark { state.compactionWanted = true }
                        }
                    case .failure(let problem):
                        degrade(&state, problem.description)
                    }
                }
            case .stop:
                settleAll { state in
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
            let retryAt = since + Self.retryAfterSeconds
            if state.compactionWanted && now >= retryAt { return compaction(&state) }
            // On the way out one more rewrite is tried at once: the file left behind otherwise
            // holds the state from before the disk filled, and the next start would bring back
            // what ended since and lose what came since.
            if state.stopping && !state.finalRewriteTried {
                state.finalRewriteTried = true
                return compaction(&state)
            }
            return state.stopping ? .stop : .wait(until: retryAt)
        }
        if state.compactionWanted { return compaction(&state) }
        if !state.pending.isEmpty, let file = state.file {
            let wantsWritten = state.waiters.contains { $0.mark > state.written }
            let writeAt = (state.pendingSince ?? now) + Self.writeDelay
            if wantsWritten || state.stopping || now >= writeAt {
                defer {
                    state.pending.removeAll(keepingCapacity: state.pending.count <= 65536)
                    state.pendingSince = nil
                }
                let due = state.unsyncedSince.map { now >= $0 + 1 } ?? false
                return .write(state.pending, mark: state.appended, file: file, thenSync: wantsDurable || state.stopping || due)
            }
            if state.written <= state.durable || (!wantsDurable && now < (state.unsyncedSince ?? now) + 1) { return .wait(until: writeAt) }
        }
        if state.written > state.durable, let file = state.file {
            let deadline = (state.unsyncedSince ?? now) + 1
            if wantsDurable || state.stopping || now >= deadline { return .sync(mark: state.written, file: file) }
            return .wait(until: deadline)
        }
        return state.stopping ? .stop : .wait(until: nil)
    }

    /// Takes every live record for a new file; what is recorded meanwhile waits in `pending`
    /// and goes to the new file after the rename.
    private func compaction(_ state: inout State) -> Step {
        let snapshot = Self.snapshot(of: state)
        state.compactionWanted = false
        state.pending = []
        state.pendingSince = nil
        state.bytes = snapshot.bytes.count
        state.liveBytes = snapshot.bytes.count
        state.recordBytes = snapshot.recordBytes
        return .compact(snapshot.bytes, mark: state.appended)
    }

    private func sync(_ file: FileDescriptor, through mark: UInt64) {
        let result = syncer(file.rawValue, false)
        settleAll { state in
            guard result == 0 else {
                // After a failed fdatasync the kernel may have dropped the dirty pages: syncing
                // again could report success for data that is gone. Rewrite everything instead.
                degrade(&state, "'fdatasync' of \(path) failed: \(Self.errnoText(result))")
                return
            }
            state.durable = max(state.durable, mark)
            if state.durable >= state.written { state.unsyncedSince = nil }
        }
    }

    /// Changes the state, then resumes (outside the lock) every waiter whose records are now
    /// where it asked for them.
    private func settle(_ change: (inout State) -> Void) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            change(&state)
            var ready: [CheckedContinuation<Void, Never>] = []
            state.waiters.removeAll { waiter in
                guard waiter.mark <= (waiter.durable ? state.durable : state.written) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        ready.forEach { $0.resume() }
    }

    /// ``settle(_:)``, releasing every waiter when the change left the journal memory-only or
    /// stopped (nothing more will be written for them).
    private func settleAll(_ change: (inout State) -> Void) {
        let everyone = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            change(&state)
            guard state.degradedSince != nil || state.stopped else { return [] }
            defer { state.waiters = [] }
            return state.waiters.map(\.continuation)
        }
        everyone.forEach { $0.resume() }
        settle { _ in }
    }
}
