
/// The one display surface, claimed by queues (Q9) and handed between modules (Q10).
///
/// Claims and releases are synchronous and lock-protected so a queue's drain never suspends
/// half-way through deciding what to show. Foreground switches are async because the outgoing
/// module gets up to ``switchAwayBound`` to prepare.
public final class NookSurfaceArbiter: Sendable {
    /// Proof of a granted claim; ending a presentation releases it (Q9).
    public struct Grant: Hashable, Sendable {
        public let token: UInt64
        public let module: NookModuleID
        public let priority: NookActivityPriority
    }

    public enum Denial: Hashable, Sendable, CustomStringConvertible {
        /// A non-foreground module asked with less than `.high`.
        case notForeground(foreground: NookModuleID?)
        /// Another claim holds the surface.
        case busy(holder: NookModuleID)
        /// A foreground switch is under way.
        case switching
        /// Quiet hours (Z1): this priority waits until they end.
        case quiet
        /// The glass is free but promised to another module's waiting claim, which has a higher
        /// priority or the same one and has waited longer (Q9: a background `.high` goes next).
        case promised(to: NookModuleID)

        public var description: String {
            switch self {
            case .promised(let module): "the glass goes next to module \(module), which has waited for it with a higher priority (or as long)"
            case .notForeground(let foreground): "module is not foreground (foreground: \(foreground?.rawValue ?? "none")) and only high priority may take the glass"
            case .busy(let holder): "the glass is held by module \(holder)"
            case .switching: "a module switch is under way"
            case .quiet: "quiet hours are on and this priority waits for them to end"
            }
        }
    }

    public enum ClaimResult: Hashable, Sendable {
        case granted(Grant)
        case denied(Denial)
    }

    public enum SwitchError: Error, Hashable, Sendable, CustomStringConvertible {
        case unknownModule(NookModuleID)
        public var description: String {
            switch self {
            case .unknownModule(let id): "no module named '\(id)' is registered"
            }
        }
    }

    /// What happened in a foreground switch, for logs and tests.
    public struct SwitchReport: Hashable, Sendable {
        public var from: NookModuleID?
        public var to: NookModuleID
        /// False when the outgoing module's preparation overran the bound and was abandoned.
        public var preparedInTime: Bool
    }

    /// A claim denied while the surface was busy (or promised): it goes ahead of fresh
    /// claims of lower priority, and is woken when the surface is released.
    private struct Waiting {
        var priority: NookActivityPriority
        var since: UInt64
        var wake: (@Sendable () -> Void)?

        /// Whether this waiting claim goes before a claim of `priority` that has waited since
        /// `otherSince` (nil: it has not waited).
        func isAhead(of priority: NookActivityPriority, since otherSince: UInt64?) -> Bool {
            self.priority > priority || (self.priority == priority && since < (otherSince ?? .max))
        }
    }

    private struct State {
        var foreground: NookModuleID?
        var holder: Grant?
        var waiting: [NookModuleID: Waiting] = [:]
        var nextWaitingSerial: UInt64 = 0
        var switching = false
        var switchWaiters: [CheckedContinuation<Void, Never>] = []
        var modules: [NookModuleID: any NookModule] = [:]
        var nextToken: UInt64 = 0
    }

    private let state: Locked<State>
    /// Consulted on every claim besides the foreground rule (Z1: quiet hours); nil admits all.
    private let gate = Locked<KeptClosure<@Sendable (NookActivityPriority) -> Bool>?>(nil)
    private let clock: any NookClock
    /// How long an outgoing module may take to prepare for switch-away (Q10).
    public let switchAwayBound: Duration

    public init(foreground: NookModuleID? = nil, clock: any NookClock = NookSystemClock(), switchAwayBound: Duration = .seconds(2)) {
        state = Locked(State(foreground: foreground))
        self.clock = clock
        self.switchAwayBound = switchAwayBound
    }

    /// The module whose claims are granted at any priority (Q12).
    public var foregroundModule: NookModuleID? { state.withLock { $0.foreground } }

    /// The claim currently holding the surface, if any.
    public var currentGrant: Grant? { state.withLock { $0.holder } }

    /// Registers a module for switches; the first one registered becomes foreground if none is.
    public func register(_ module: any NookModule) {
        state.withLock { state in
            state.modules[module.id] = module
            if state.foreground == nil, !state.switching { state.foreground = module.id }
        }
    }

    /// Sets the gate every claim must pass as well as the foreground rule: a claim of a
    /// priority it refuses is denied as ``Denial/quiet`` and, like a background module's
    /// `normal`, is not remembered as waiting. The claim holding the glass is not affected.
    public func setGate(_ admits: (@Sendable (NookActivityPriority) -> Bool)?) {
        gate.withLock { $0 = admits.map(KeptClosure.init) }
    }

    /// Asks for the surface on behalf of `module` to show an activity of `priority` (Q9).
    ///
    /// A claim denied because the glass is held is remembered until `module` claims again or
    /// ``withdraw(module:)``s: when the glass is released, it goes before any claim of lower
    /// priority (or equal priority that has not waited as long), so a queue that releases and
    /// re-claims in one turn cannot keep a waiting background `.high` off the glass. `whenFree`
    /// is called (on the releasing thread; keep it short) when the glass is released meanwhile.
    public func claim(module: NookModuleID, priority: NookActivityPriority,
                      whenFree: (@Sendable () -> Void)? = nil) -> ClaimResult {
        // Asked outside the lock: the gate may read the wall clock and takes a lock of its own.
        let gated = gate.withLock { $0 }.map { !$0.call(priority) } ?? false
        let (result, woken) = state.withLock { state -> (ClaimResult, [@Sendable () -> Void]) in
            if state.switching { return (.denied(.switching), []) }
            let waited = state.waiting.removeValue(forKey: module)
            if module != state.foreground, priority < .high {
                // No longer a contender: whoever it kept waiting may try again.
                return (.denied(.notForeground(foreground: state.foreground)), waited == nil ? [] : Self.wakes(state.waiting))
            }
            if gated {
                return (.denied(.quiet), waited == nil ? [] : Self.wakes(state.waiting))
            }
            func wait() {
                state.nextWaitingSerial += 1
                state.waiting[module] = Waiting(priority: priority, since: waited?.since ?? state.nextWaitingSerial, wake: whenFree)
            }
            if let holder = state.holder {
                wait()
                return (.denied(.busy(holder: holder.module)), [])
            }
            let ahead = state.waiting.filter { $0.value.isAhead(of: priority, since: waited?.since) }
                .min { $0.value.isAhead(of: $1.value.priority, since: $1.value.since) }
            if let ahead {
                wait()
                return (.denied(.promised(to: ahead.key)), [])
            }
            state.nextToken += 1
            let grant = Grant(token: state.nextToken, module: module, priority: priority)
            state.holder = grant
            return (.granted(grant), [])
        }
        for wake in woken { wake() }
        return result
    }

    /// Forgets `module`'s waiting claim (its queue stopped wanting the glass: suspended, empty,
    /// yielding to the user), so it no longer goes ahead of others.
    public func withdraw(module: NookModuleID) {
        let woken = state.withLock { state -> [@Sendable () -> Void] in
            guard state.waiting.removeValue(forKey: module) != nil, state.holder == nil else { return [] }
            return Self.wakes(state.waiting)
        }
        for wake in woken { wake() }
    }

    /// Ends a claim. Releasing a stale token (already released, or invalidated by a module
    /// switch) is a harmless no-op that returns false (Q9). Waiting claims are woken.
    @discardableResult
    public func release(_ grant: Grant) -> Bool {
        let woken = state.withLock { state -> [@Sendable () -> Void]? in
            guard state.holder == grant else { return nil }
            state.holder = nil
            return Self.wakes(state.waiting)
        }
        guard let woken else { return false }
        for wake in woken { wake() }
        return true
    }

    private static func wakes(_ waiting: [NookModuleID: Waiting]) -> [@Sendable () -> Void] {
        waiting.values.compactMap(\.wake)
    }

    /// Whether `grant` still holds the surface; renderers check before drawing.
    public func isCurrent(_ grant: Grant) -> Bool { state.withLock { $0.holder == grant } }

    /// Makes `target` the foreground module (Q10): the outgoing module's claim goes stale at
    /// once, it prepares for switch-away for at most ``switchAwayBound``, gets `didDeactivate`,
    /// and then `target` is foreground. Concurrent switches run one after another.
    @discardableResult
    public func switchForeground(to target: NookModuleID) async throws(SwitchError) -> SwitchReport {
        while true {
            enum Step { case wait, unknown, start(outgoing: (any NookModule)?, from: NookModuleID?), already }
            let step: Step = state.withLock { state in
                if state.switching { return .wait }
                guard state.modules[target] != nil else { return .unknown }
                if state.foreground == target { return .already }
                let from = state.foreground
                state.switching = true
                state.foreground = nil
                // Who may claim changes with the foreground: waiting claims start over.
                state.waiting.removeAll()
                if let holder = state.holder, holder.module == from { state.holder = nil }
                return .start(outgoing: from.flatMap { state.modules[$0] }, from: from)
            }
            switch step {
            case .wait:
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLock { state in
                        if !state.switching { return true }
                        state.switchWaiters.append(continuation)
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
                continue
            case .unknown:
                throw .unknownModule(target)
            case .already:
                return SwitchReport(from: target, to: target, preparedInTime: true)
            case .start(let outgoing, let from):
                var preparedInTime = true
                if let outgoing {
                    preparedInTime = await runBounded(switchAwayBound) { await outgoing.prepareForSwitchAway() }
                    outgoing.didDeactivate()
                }
                let (incoming, waiters) = state.withLock { state in
                    state.foreground = target
                    state.switching = false
                    defer { state.switchWaiters.removeAll() }
                    return (state.modules[target], state.switchWaiters)
                }
                incoming?.didActivate()
                for waiter in waiters { waiter.resume() }
                return SwitchReport(from: from, to: target, preparedInTime: preparedInTime)
            }
        }
    }

    /// Runs `work` and returns when it finishes or `bound` passes on the clock, whichever is
    /// first; true if the work finished. Work that overruns is cancelled and left behind: it
    /// cannot hold the caller (Q10).
    private func runBounded(_ bound: Duration, _ work: @escaping @Sendable () async -> Void) async -> Bool {
        let deadline = clock.now + bound
        let outcome = FirstOutcome()
        let clock = self.clock
        let workTask = Task {
            await work()
            outcome.settle(true)
        }
        let timerTask = Task {
            try? await clock.sleep(until: deadline)
            outcome.settle(false)
        }
        let finished = await outcome.value()
        if finished { timerTask.cancel() } else { workTask.cancel() }
        return finished
    }
}

/// A one-shot result that the first of several racing tasks settles.
final class FirstOutcome: Sendable {
    private struct State {
        var result: Bool?
        var waiter: CheckedContinuation<Bool, Never>?
    }

    private let state = Locked(State())

    func settle(_ result: Bool) {
        let waiter: CheckedContinuation<Bool, Never>? = state.withLock { state in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }

    func value() async -> Bool {
        await withCheckedContinuation { continuation in
            let ready: Bool? = state.withLock { state in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
