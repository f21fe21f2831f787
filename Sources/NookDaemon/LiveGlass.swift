import NookActivities
import NookDisplay
import NookSystem

/// The glass for the live view (V1): a count of the frames presented (the generation) and, while
/// someone watches, a copy of the newest, upright as drawn. The screen hands each frame over on
/// its own executor; this only copies it into a buffer kept for the purpose (no encoding, no
/// allocation once watching), and not even that when nobody has asked for a frame lately, so an
/// unwatched board pays one counter per frame and holds no extra frame in memory.
/// Waiters for a newer frame are woken by the present that makes it.
final class LiveGlass: PresentedFrames {
    /// A copy of one presented frame and its generation.
    struct Captured: Sendable {
        var generation: Int
        var frame: Frame
    }

    /// How long a request keeps frames being copied after it was answered: a viewer's next
    /// request comes well within it, so a stream never waits for a seed.
    static let watchAfterRequest: Duration = .seconds(30)
    /// How many `frame` requests may wait for a newer frame at once; more are refused.
    static let maximumWaiters = 64
    /// How many of them one uid may hold, so that one client cannot take every place. A
    /// viewer needs one at a time, and nook-http shares one among all of its viewers.
    static let maximumWaitersPerUser = 16

    private struct Waiter {
        var after: Int
        /// Whose client asks (nil: counted against the whole table only).
        var uid: UInt32?
        var continuation: CheckedContinuation<Void, Never>
        /// Whether its client has gone (its connection closed).
        var isGone: @Sendable () -> Bool
    }

    private struct State {
        var generation = 0
        var captured: Captured?
        /// The buffer the next frame is copied into (the one captured before it).
        var spare: Frame?
        var watchedUntil: Duration = .zero
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
    }

    private let state = Locked(State())
    private let now: @Sendable () -> Duration

    init(now: @escaping @Sendable () -> Duration = { MonotonicClock.now }) {
        self.now = now
    }

    /// Frames presented since nookd started.
    var generation: Int { state.withLock { $0.generation } }
    /// The newest frame copied, if it is the one on the glass.
    var current: Captured? {
        state.withLock { state in state.captured.flatMap { $0.generation == state.generation ? $0 : nil } }
    }
    var waiting: Int { state.withLock { $0.waiters.count } }
    /// Whether frames are being copied now (someone asked lately).
    var isWatched: Bool { let time = now(); return state.withLock { time < $0.watchedUntil } }

    /// Someone wants frames: copy each one for `duration` from now.
    func watch(for duration: Duration) {
        let until = now() + duration
        state.withLock { $0.watchedUntil = max($0.watchedUntil, until) }
    }

    func presented(_ frame: Frame) {
        let time = now()
        // Watched, the copy is made first and the count moves with it, under one lock: a reader
        // never sees a generation whose frame is not in yet (`frame` answered "the glass changed
        // while its frame was taken" to a viewer opened as a card slid in).
        enum Step { case counted(Int), copy(into: Frame?) }
        let step = state.withLock { state -> Step in
            guard time < state.watchedUntil else {
                // Nobody watches: let the copies go.
                state.generation += 1
                state.captured = nil
                state.spare = nil
                return .counted(state.generation)
            }
            defer { state.spare = nil }
            return .copy(into: state.spare)
        }
        let generation: Int
        switch step {
        case .counted(let counted):
            generation = counted
        case .copy(let buffer):
            let copy = Self.copied(frame, into: buffer)
            generation = state.withLock { state in
                state.generation += 1
                // The old copy becomes the next buffer (an encoder still reading it makes the
                // next copy allocate, never waits for it).
                state.spare = state.captured?.frame
                state.captured = Captured(generation: state.generation, frame: copy)
                return state.generation
            }
        }
        wake(upTo: generation)
    }

    func showing(_ frame: Frame) {
        let time = now()
        var buffer: Frame?
        let generation = state.withLock { state -> Int? in
            guard time < state.watchedUntil, state.captured?.generation != state.generation else { return nil }
            buffer = state.spare
            state.spare = nil
            return state.generation
        }
        if let generation { install(frame, into: buffer, as: generation) }
    }

    /// Copies `frame` (outside the lock: a memcpy of the frame) and makes it the captured one.
    private func install(_ frame: Frame, into buffer: Frame?, as generation: Int) {
        let copy = Self.copied(frame, into: buffer)
        state.withLock { state in
            guard generation >= (state.captured?.generation ?? 0) else { return }
            state.spare = state.captured?.frame
            state.captured = Captured(generation: generation, frame: copy)
        }
    }

    /// `frame` copied into `buffer`, or into a new frame when there is none of its size.
    private static func copied(_ frame: Frame, into buffer: Frame?) -> Frame {
        // A buffer of another size (the panel was turned at a reload) is not reused: taking
        // the screen's frame instead would share its storage and make its next draw copy it.
        var copy = buffer.flatMap { $0.size == frame.size ? $0 : nil } ?? Frame(width: frame.width, height: frame.height)
        copy.overwrite(with: frame)
        return copy
    }

    private func wake(upTo generation: Int) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.waiters.isEmpty else { return [] }
            var woken: [CheckedContinuation<Void, Never>] = []
            for (id, waiter) in state.waiters where waiter.after < generation {
                woken.append(waiter.continuation)
                state.waiters[id] = nil
            }
            return woken
        }
        for continuation in woken { continuation.resume() }
    }

    enum WaitOutcome: Equatable { case newer, timedOut, tooMany, tooManyForUser }

    /// Returns once a frame newer than generation `after` has been presented, or after
    /// `timeout` (on `clock`), whichever comes first; at once with `.tooMany` when
    /// ``maximumWaiters`` already wait, and with `.tooManyForUser` when ``maximumWaitersPerUser``
    /// of `uid`'s do. Waiters whose client is gone (`isGone`) are let go when the table or the
    /// uid's share is full, so clients that hang up cannot hold it for the whole wait.
    func waitForFrame(after: Int, timeout: Duration, clock: any NookClock, uid: UInt32? = nil,
                      isGone: @escaping @Sendable () -> Bool = { false }) async -> WaitOutcome {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let deadline = clock.now + timeout
        let timer = Task { [weak self] in
            try? await clock.sleep(until: deadline)
            self?.release(id)
        }
        defer { timer.cancel() }
        var outcome = WaitOutcome.newer
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            var abandoned: [CheckedContinuation<Void, Never>] = []
            let ready = state.withLock { state -> Bool in
                if state.generation > after || clock.now >= deadline { return true }
                func usersWaiters() -> Int { uid.map { uid in state.waiters.values.count(where: { $0.uid == uid }) } ?? 0 }
                if state.waiters.count >= Self.maximumWaiters || usersWaiters() >= Self.maximumWaitersPerUser {
                    for (other, waiter) in state.waiters where waiter.isGone() {
                        abandoned.append(waiter.continuation)
                        state.waiters[other] = nil
                    }
                }
                if state.waiters.count >= Self.maximumWaiters {
                    outcome = .tooMany
                    return true
                }
                if usersWaiters() >= Self.maximumWaitersPerUser {
                    outcome = .tooManyForUser
                    return true
                }
                state.waiters[id] = Waiter(after: after, uid: uid, continuation: continuation, isGone: isGone)
                return false
            }
            for waiter in abandoned { waiter.resume() }
            if ready { continuation.resume() }
        }
        if outcome == .newer, generation <= after { outcome = .timedOut }
        return outcome
    }

    /// The waiter's time is up (if it is still waiting).
    private func release(_ id: Int) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.continuation.resume()
    }
}
