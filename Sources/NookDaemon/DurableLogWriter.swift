import Dispatch
import NookSystem
import Synchronization

/// The log's writer thread: the only code that writes, syncs or replaces the file, so the
/// queues, the display loop and the request handlers only ever append to memory and wait.
extension DurableLog {
    private enum Step {
        /// Sleep until kicked, or until the monotonic deadline (a write or a sync is due).
        case wait(until: Double?)
        case write([Content.Record], mark: UInt64, file: FileDescriptor, thenSync: Bool)
        case sync(mark: UInt64, file: FileDescriptor)
        case rewrite(ArraySlice<Content.Record>, mark: UInt64, wasDegraded: Bool)
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
            case .write(let records, let mark, let file, let thenSync):
                // Everything kept (these records too) goes to a new file at the path instead.
                guard DurableFile.isStill(file, at: path) else {
                    settle { $0.rewriteWanted = true }
                    continue
                }
                let lines = Content.lines(records[...])
                if let problem = DurableFile.append(file, lines.bytes, path: path) {
                    settle { degrade(&$0, problem) }
                    continue
                }
                settle { state in
                    if state.content.wrote(records[...], as: lines, rewrite: false) { state.rewriteWanted = true }
                    state.written = max(state.written, mark)
                    if state.unsyncedSince == nil { state.unsyncedSince = monotonic() }
                }
                if thenSync { sync(file, through: mark, path: path) }
            case .sync(let mark, let file):
                sync(file, through: mark, path: path)
            case .rewrite(let records, let mark, let wasDegraded):
                let lines = Content.lines(records)
                let replaced = DurableFile.replace(path, with: lines.bytes, syncer: syncer, label: settings.label, warn: warn)
                settle { state in
                    switch replaced {
                    case .success(let file):
                        _ = state.content.wrote(records, as: lines, rewrite: true)
                        state.file = file
                        state.written = max(state.written, mark)
                        state.durable = max(state.durable, mark)
                        if state.written == state.durable { state.unsyncedSince = nil }
                        if wasDegraded {
                            warn("\(settings.label) \(path): writable again; \(state.content.savedSummary) saved")
                            state.degradedSince = nil
                            state.problem = nil
                            // Records made while this rewrite ran were kept in memory only, not
                            // in `pending`: the file misses them until it is rewritten again.
                            if state.appended > mark { state.rewriteWanted = true }
                        }
                    case .failure(let problem):
                        degrade(&state, problem.description)
                    }
                }
            case .stop:
                settle { state in
                    state.file = nil
                    state.stopped = true
                }
                writerDone.signal()
                return
            }
        }
    }

    private func nextStep(_ state: inout State, now: Double) -> Step {
        let wantsDurable = state.syncWanted > state.durable || state.waiters.contains { $0.durable && $0.mark > state.durable }
        if let since = state.degradedSince {
            let retryAt = since + DurableFile.retryAfterSeconds
            if state.rewriteWanted && now >= retryAt { return rewrite(&state) }
            // On the way out one more rewrite is tried at once: the file left behind otherwise
            // holds what was kept before the disk filled, and the next start would bring back
            // what ended since and lose what came since.
            if state.stopping && !state.finalRewriteTried {
                state.finalRewriteTried = true
                return rewrite(&state)
            }
            return state.stopping ? .stop : .wait(until: retryAt)
        }
        if state.rewriteWanted { return rewrite(&state) }
        if !state.pending.isEmpty, let file = state.file {
            let wantsWritten = state.writeWanted > state.written || state.waiters.contains { $0.mark > state.written }
            let writeAt = (state.pendingSince ?? now) + settings.writeDelay
            if wantsWritten || state.stopping || now >= writeAt {
                defer {
                    state.pending.removeAll(keepingCapacity: state.pending.count <= 4096)
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

    /// Takes every kept record for a new file; what is recorded meanwhile waits in `pending`
    /// and goes to the new file after the rename.
    private func rewrite(_ state: inout State) -> Step {
        state.rewriteWanted = false
        state.pending = []
        state.pendingSince = nil
        return .rewrite(state.content.recordsToKeep(), mark: state.appended, wasDegraded: state.degradedSince != nil)
    }

    private func sync(_ file: FileDescriptor, through mark: UInt64, path: String) {
        let result = syncer(file.rawValue, false)
        // Synced to a file no longer at the path: not durable, as a restart reads the path.
        let moved = result == 0 && !DurableFile.isStill(file, at: path)
        settle { state in
            guard result == 0 else {
                // After a failed fdatasync the kernel may have dropped the dirty pages: syncing
                // again could report success for data that is gone. Rewrite everything instead.
                degrade(&state, "'fdatasync' of \(path) failed: \(Errno(rawValue: result))")
                return
            }
            guard !moved else {
                state.rewriteWanted = true
                return
            }
            state.durable = max(state.durable, mark)
            if state.durable >= state.written { state.unsyncedSince = nil }
        }
    }

    /// Changes the state, then resumes (outside the lock) every waiter whose records are now
    /// where it asked for them, or every waiter when the change left the log memory-only or
    /// stopped (nothing more will be written for them).
    private func settle(_ change: (inout State) -> Void) {
        let ready = state.withLock { state -> [@Sendable () -> Void] in
            change(&state)
            let everyone = state.degradedSince != nil || state.stopped
            var ready: [@Sendable () -> Void] = []
            state.waiters.removeAll { waiter in
                guard everyone || waiter.mark <= (waiter.durable ? state.durable : state.written) else { return false }
                ready.append(waiter.done)
                return true
            }
            return ready
        }
        ready.forEach { $0() }
    }
}
