#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import NookActivities
import NookSystem
import Synchronization
internal import CGPIOD

/// GPIO lines (SPEC I1) driving the roles of ``NookEngagement`` and dismissing cards, through
/// libgpiod 1.6 or 2.x.
///
/// One thread waits in `poll(2)` on every requested line's edge-event descriptor, so a press
/// reaches the queue within microseconds of the kernel seeing the edge. A line that is missing,
/// held by another program or not permitted is a warning (I4): the input stays inactive and
/// the line is looked for again once a second; a chip that goes away is the same.
public final class GPIOInputs: Sendable {
    /// One line's live state, for `nookctl status`.
    public struct LineState: Hashable, Sendable {
        public var name: String
        public var role: GPIOLineSettings.Role
        /// The resolved chip and offset, or the configured location while it is not found.
        public var location: String
        /// The debounced logical level (true = active); nil while the line is not available.
        public var isActive: Bool?
        /// Accepted (debounced) changes since start.
        public var changes: Int
        /// From the kernel's edge timestamp to the queue having been told, for the last change.
        public var lastEdgeToWake: Duration?
        public var problem: String?
    }

    /// libgpiod's version and API generation (1 or 2) this build uses.
    public static var library: (version: String, api: Int) {
        (String(cString: nook_gpio_library_version()), Int(nook_gpio_api()))
    }

    private let lines: [GPIOLineSettings]
    private let engagement: NookEngagement
    private let dismiss: @Sendable () -> Void
    private let pressed: @Sendable (GPIOLineSettings.Role, String, Bool) -> Void
    private let invoke: @Sendable () -> Bool
    private let longPress: @Sendable () -> Bool
    private let info: @Sendable (String) -> Void
    private let warn: @Sendable (String) -> Void
    private let devices: String
    private let state: Locked<[LineState]>
    private let stopping = Atomic<Bool>(false)
    private let wakePipe: WakePipe
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)

    /// - Parameters:
    ///   - devices: where `gpiochipN` devices are; tests point it elsewhere.
    ///   - invoke: asked on each press of an `open` line; true when a card with a default
    ///     action is on the glass and has been told to invoke it (E3), which uses up a toggle's
    ///     press instead of opening the nook.
    public init(lines: [GPIOLineSettings], engagement: NookEngagement, devices: String = "/dev",
                dismiss: @escaping @Sendable () -> Void,
                pressed: @escaping @Sendable (_ role: GPIOLineSettings.Role, _ label: String, _ invoked: Bool) -> Void = { _, _, _ in },
                invoke: @escaping @Sendable () -> Bool = { false },
                longPress: @escaping @Sendable () -> Bool = { false },
                info: @escaping @Sendable (String) -> Void, warn: @escaping @Sendable (String) -> Void) throws(SensorProblem) {
        do throws(SystemCallError) {
            wakePipe = try WakePipe()
        } catch {
            throw SensorProblem(error.description)
        }
        self.lines = lines
        self.engagement = engagement
        self.devices = devices
        self.dismiss = dismiss
        self.pressed = pressed
        self.invoke = invoke
        self.longPress = longPress
        self.info = info
        self.warn = warn
        state = Locked(lines.map {
            LineState(name: $0.name, role: $0.role, location: $0.location, isActive: nil, changes: 0, lastEdgeToWake: nil, problem: "not looked for yet")
        })
    }

    public var states: [LineState] { state.withLock { $0 } }

    /// Starts watching on a thread of its own.
    public func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        startThread(named: "nook.gpio") { self.watch() }
    }

    /// Stops watching and releases every line.
    public func stop() {
        guard started.load(ordering: .acquiring), !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wakePipe.wake()
        finished.wait()
    }

    // MARK: The watching thread

    /// One configured line as the thread tracks it.
    private struct Watched {
        let settings: GPIOLineSettings
        var line: GPIORequestedLine?
        var debouncer: GPIODebouncer?
        var role: GPIORoleState
        var retryAt: Duration = .zero
        /// How long until the next look for a missing line: 1 s, doubling to 8 s while it stays
        /// missing (a daemon on a board without the wiring should not wake every second).
        var retryDelay: Duration = .seconds(1)
        var problem: String?

        init(_ settings: GPIOLineSettings) {
            self.settings = settings
            role = GPIORoleState(role: settings.role, openMode: settings.openMode, longPressAfter: settings.longPressAfter)
        }
    }

    private func watch() {
        var watched = lines.map(Watched.init)
        while !stopping.load(ordering: .acquiring) {
            var now = MonotonicClock.now
            for index in watched.indices where watched[index].line == nil && now >= watched[index].retryAt {
                open(&watched[index], index: index, now: now)
            }
            for index in watched.indices {
                if let deadline = watched[index].debouncer?.deadline, now >= deadline { settle(&watched[index], index: index, now: now) }
                if watched[index].line != nil, let effect = watched[index].role.held(at: now, longPress: longPress) {
                    longPressed(effect, entry: watched[index])
                }
            }

            var descriptors = [wakePipe.pollEntry]
            var polled: [Int] = []
            var wakeAt: Duration?
            for (index, entry) in watched.enumerated() {
                if let line = entry.line {
                    descriptors.append(pollfd(fd: line.fileDescriptor, events: Int16(POLLIN), revents: 0))
                    polled.append(index)
                    if let deadline = entry.debouncer?.deadline { wakeAt = min(wakeAt ?? deadline, deadline) }
                    if let deadline = entry.role.longPressDeadline { wakeAt = min(wakeAt ?? deadline, deadline) }
                } else {
                    wakeAt = min(wakeAt ?? entry.retryAt, entry.retryAt)
                }
            }
            now = MonotonicClock.now
            let timeout = wakeAt.map { Int32(min(60_000, max(0, (($0 - now) / .milliseconds(1)).rounded(.up)))) } ?? -1
            let ready = (try? pollDescriptors(&descriptors, timeoutMilliseconds: timeout)) ?? 0
            guard ready > 0 else { continue }
            if descriptors[0].revents != 0 { wakePipe.drain() }
            for (slot, index) in polled.enumerated() {
                let events = descriptors[slot + 1].revents
                guard events != 0 else { continue }
                if events & Int16(POLLIN) != 0 {
                    receiveEdges(&watched[index], index: index)
                } else {
                    lose(&watched[index], index: index, because: "the chip went away (poll reports \(events))", now: MonotonicClock.now)
                }
            }
        }
        for index in watched.indices { watched[index].line = nil }
        finished.signal()
    }

    private func open(_ entry: inout Watched, index: Int, now: Duration) {
        let settings = entry.settings
        let result = GPIOLookup.locate(settings, devices: devices).flatMap { location -> Result<(GPIORequestedLine, Bool), SensorProblem> in
            let line: GPIORequestedLine
            do throws(SensorProblem) {
                line = try GPIORequestedLine(location, bias: settings.bias, consumer: "nookd")
            } catch {
                return .failure(error)
            }
            return line.read().map { (line, $0) }
        }
        switch result {
        case .success(let (line, physical)):
            let active = physical != settings.activeLow
            entry.line = line
            entry.debouncer = GPIODebouncer(window: settings.debounce, level: active)
            entry.problem = nil
            entry.retryDelay = .seconds(1)
            if let engaged = entry.role.initialEngagement(active: active), let role = Self.engagementRole(settings.role) {
                engagement.set(role, active: engaged, input: settings.label)
            }
            state.withLock {
                $0[index].location = line.location.description
                $0[index].isActive = active
                $0[index].problem = nil
            }
            info("\(settings.label): watching \(line.location) as \(Self.describe(settings)); now \(active ? "active" : "inactive")")
        case .failure(let problem):
            if problem.description != entry.problem {
                warn("\(settings.label): \(problem); running without it until it appears")
            }
            entry.problem = problem.description
            entry.retryAt = now + entry.retryDelay
            entry.retryDelay = min(entry.retryDelay * 2, .seconds(8))
            state.withLock { $0[index].problem = problem.description }
        }
    }

    private func receiveEdges(_ entry: inout Watched, index: Int) {
        guard let line = entry.line else { return }
        switch line.edges() {
        case .failure(let problem):
            lose(&entry, index: index, because: problem.description, now: MonotonicClock.now)
        case .success(let edges):
            for edge in edges {
                let active = edge.isRising != entry.settings.activeLow
                if let change = entry.debouncer?.edge(to: active, at: edge.time) {
                    apply(change, to: &entry, index: index, edgeTime: edge.time)
                }
            }
        }
    }

    private func settle(_ entry: inout Watched, index: Int, now: Duration) {
        guard let line = entry.line else { return }
        switch line.read() {
        case .failure(let problem):
            lose(&entry, index: index, because: problem.description, now: now)
        case .success(let physical):
            if let change = entry.debouncer?.settle(reading: physical != entry.settings.activeLow, at: now) {
                apply(change, to: &entry, index: index, edgeTime: now)
            }
        }
    }

    /// Acts on a debounced change of the line's logical level.
    private func apply(_ active: Bool, to entry: inout Watched, index: Int, edgeTime: Duration) {
        let settings = entry.settings
        let isPress = entry.role.isPress(active: active)
        let effect = entry.role.change(active: active, at: edgeTime, invokes: invoke)
        if isPress {
            let invoked = if case .invoked = effect { true } else { false }
            pressed(settings.role, settings.label, invoked)
        }
        switch effect {
        case .engagement(let engaged), .invoked(let engaged?):
            if let role = Self.engagementRole(settings.role) { engagement.set(role, active: engaged, input: settings.label) }
        case .invoked(nil):
            break
        case .dismiss:
            dismiss()
        case .none:
            break
        }
        let latency = MonotonicClock.now - edgeTime
        state.withLock {
            $0[index].isActive = active
            $0[index].changes += 1
            $0[index].lastEdgeToWake = latency
        }
        let outcome: String = switch effect {
        case .engagement(let engaged): "\(settings.role.rawValue) \(engaged ? "on" : "off")"
        case .dismiss: "dismiss"
        case .invoked: "invoked the card's action"
        case .none: "no effect"
        }
        info("\(settings.label): \(active ? "active" : "inactive") → \(outcome) (edge to queue wake \(Self.milliseconds(latency)) ms)")
    }

    /// A held button became a long press that was taken (U5): the toggle its press made is
    /// undone.
    private func longPressed(_ effect: GPIORoleState.Effect, entry: Watched) {
        let settings = entry.settings
        if case .engagement(let engaged) = effect, let role = Self.engagementRole(settings.role) {
            engagement.set(role, active: engaged, input: settings.label)
        }
        info("\(settings.label): held \(Self.milliseconds(settings.longPressAfter ?? .zero)) ms → long press (recall); open back \(entry.role.isOpen ? "on" : "off")")
    }

    /// The line vanished or failed: its input goes inactive (a lost toggle closes) and it is
    /// looked for again.
    private func lose(_ entry: inout Watched, index: Int, because reason: String, now: Duration) {
        let settings = entry.settings
        entry.line = nil
        entry.debouncer = nil
        entry.role = GPIORoleState(role: settings.role, openMode: settings.openMode, longPressAfter: settings.longPressAfter)
        entry.problem = reason
        // A line that was there is looked for again quickly: the chip is probably coming back.
        entry.retryDelay = .seconds(1)
        entry.retryAt = now + .seconds(1)
        if let role = Self.engagementRole(settings.role) { engagement.set(role, active: false, input: settings.label) }
        state.withLock {
            $0[index].isActive = nil
            $0[index].problem = reason
        }
        warn("\(settings.label): lost the line: \(reason); looking for it again")
    }

    private static func engagementRole(_ role: GPIOLineSettings.Role) -> NookEngagement.Role? {
        switch role {
        case .hover: .hover
        case .open: .open
        case .presence: .presence
        case .dismiss: nil
        }
    }

    private static func describe(_ settings: GPIOLineSettings) -> String {
        var parts = [settings.role == .open ? "open (\(settings.openMode.rawValue))" : settings.role.rawValue]
        if settings.activeLow { parts.append("active-low") }
        if settings.bias != .asIs { parts.append("bias \(settings.bias.rawValue)") }
        parts.append("debounce \(milliseconds(settings.debounce)) ms")
        return parts.joined(separator: ", ")
    }

    static func milliseconds(_ duration: Duration) -> String {
        let microseconds = duration / .microseconds(1)
        return "\((microseconds / 10).rounded() / 100)"
    }
}
