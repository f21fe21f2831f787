#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import NookActivities
import NookSystem
import Synchronization

/// What the touch reader is doing, for `nookctl status`.
public struct TouchState: Hashable, Sendable {
    /// The device read, as a path; nil while there is none.
    public var device: String?
    /// The name its driver gives it (`Goodix Capacitive TouchScreen`).
    public var deviceName: String?
    /// The last gesture's ``TouchGesture/name``.
    public var lastGesture: String?
    /// Why there is no device, or what went wrong last; nil while all is well.
    public var problem: String?

    public init(device: String? = nil, deviceName: String? = nil, lastGesture: String? = nil, problem: String? = nil) {
        (self.device, self.deviceName, self.lastGesture, self.problem) = (device, deviceName, lastGesture, problem)
    }
}

/// A touch panel (T1) read through its evdev device, its fingers turned into gestures (T2) at
/// the point of the picture under them (T3).
///
/// One thread waits in `poll(2)` on the device and a wake pipe. A missing, unreadable or
/// unsuitable device is a warning naming it (I4), and is looked for again once a second; a
/// device that goes away (a USB panel unplugged) ends any gesture cancelled and is looked for
/// the same way, so a replugged one works again. A device that floods is closed, and opened
/// again after a pause growing to 8 s while it keeps flooding. Each wake reads a bounded
/// number of events, so a busy device never starves the stop request.
public final class TouchInput: Sendable {
    private let settings: TouchSettings
    private let picture: (width: Int, height: Int)
    private let quarterTurns: Int
    private let panelQuarterTurns: Int
    private let source: any TouchDeviceSource
    private let clock: @Sendable () -> Duration
    private let gesture: @Sendable (TouchGesture) -> Void
    private let info: @Sendable (String) -> Void
    private let warn: @Sendable (String) -> Void
    private let current: Locked<TouchState>
    private let wakePipe: WakePipe?
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - picture: the picture as drawn, before the display turns it, in logical pixels.
    ///   - quarterTurns: the display's configured rotation (R6) in clockwise quarter turns
    ///     (`Rotation.degrees / 90`).
    ///   - panelQuarterTurns: the connector's panel orientation, in clockwise quarter turns,
    ///     applied after `quarterTurns` as nookd does.
    ///   - devices: where the `eventN` devices are.
    ///   - clock: CLOCK_MONOTONIC, the clock the kernel stamps events with; tests inject theirs.
    ///   - gesture: called on the reader's thread for every gesture, in order; it must not call
    ///     stop(), which waits for that thread.
    public convenience init(settings: TouchSettings, picture: (width: Int, height: Int), quarterTurns: Int, panelQuarterTurns: Int = 0,
                            devices: String = "/dev/input", clock: @escaping @Sendable () -> Duration = { MonotonicClock.now },
                            gesture: @escaping @Sendable (TouchGesture) -> Void,
                            info: @escaping @Sendable (String) -> Void, warn: @escaping @Sendable (String) -> Void) {
        self.init(settings: settings, picture: picture, quarterTurns: quarterTurns, panelQuarterTurns: panelQuarterTurns,
                  source: EvdevTouchSource(directory: devices), clock: clock, gesture: gesture, info: info, warn: warn)
    }

    init(settings: TouchSettings, picture: (width: Int, height: Int), quarterTurns: Int, panelQuarterTurns: Int,
         source: any TouchDeviceSource, clock: @escaping @Sendable () -> Duration,
         gesture: @escaping @Sendable (TouchGesture) -> Void, info: @escaping @Sendable (String) -> Void, warn: @escaping @Sendable (String) -> Void) {
        self.settings = settings
        self.picture = picture
        self.quarterTurns = quarterTurns
        self.panelQuarterTurns = panelQuarterTurns
        self.source = source
        self.clock = clock
        self.gesture = gesture
        self.info = info
        self.warn = warn
        var problem: String? = "not looked for yet"
        do throws(SystemCallError) {
            wakePipe = try WakePipe()
        } catch {
            wakePipe = nil
            problem = "cannot start the touch reader: \(error)"
        }
        current = Locked(TouchState(problem: problem))
    }

    public var state: TouchState { current.withLock { $0 } }

    /// Starts reading on a thread of its own.
    public func start() {
        guard let wakePipe else {
            warn("touch: \(state.problem ?? "cannot start")")
            return
        }
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        startThread(named: "nook.touch") { self.watch(wakePipe) }
    }

    /// Stops reading and closes the device; a gesture still open ends cancelled.
    public func stop() {
        guard let wakePipe, started.load(ordering: .acquiring), !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wakePipe.wake()
        finished.wait()
    }

    // MARK: The reading thread

    /// The open device as the thread tracks it.
    private struct Reading {
        let device: TouchDevice
        var contacts: TouchContacts
        let mapping: TouchMapping
        /// Bytes of an event not yet whole (a pipe may split one; the kernel never does).
        var partial: [UInt8] = []
        var flood = TouchFloodGuard()
        var saidClamped = false
        var saidImpossible = false
        let openedAt: Duration
    }

    private enum Received {
        case more
        case drained
        case lost(String)
        case flooded
    }

    /// Events read per wake at most: a flood cannot keep the thread from its other work.
    private static let eventsPerRead = 64
    private static let readsPerWake = 4

    private func watch(_ wakePipe: WakePipe) {
        var recognizer = TouchRecognizer(settings: settings, pictureWidth: Double(max(1, picture.width)))
        var reading: Reading?
        var retryAt = Duration.zero
        var floodPause = Duration.seconds(1)
        var lastProblem: String?
        var buffer = [UInt8](repeating: 0, count: Self.eventsPerRead * EvdevEvent.size)
        while !stopping.load(ordering: .acquiring) {
            var now = clock()
            if reading == nil, now >= retryAt {
                switch source.find(settings.device, note: info) {
                case .success(let device):
                    reading = opened(device, recognizer: &recognizer, now: now)
                    lastProblem = nil
                case .failure(let problem):
                    if problem.description != lastProblem { warn("touch: \(problem); running without touch until one appears") }
                    lastProblem = problem.description
                    current.withLock { $0.problem = problem.description }
                    retryAt = now + .seconds(1)
                }
            }
            if let deadline = recognizer.deadline, now >= deadline { emit(recognizer.tick(at: now)) }
            if let open = reading, now >= open.openedAt + .seconds(10) { floodPause = .seconds(1) }

            var descriptors = [wakePipe.pollEntry]
            if let reading { descriptors.append(pollfd(fd: reading.device.descriptor.rawValue, events: Int16(POLLIN), revents: 0)) }
            let wakeAt = [recognizer.deadline, reading == nil ? retryAt : nil].compactMap { $0 }.min()
            now = clock()
            let timeout = wakeAt.map { Int32(min(60_000, max(0, (($0 - now) / .milliseconds(1)).rounded(.up)))) } ?? -1
            let ready = (try? pollDescriptors(&descriptors, timeoutMilliseconds: timeout)) ?? 0
            guard ready > 0 else { continue }
            if descriptors[0].revents != 0 { wakePipe.drain() }
            guard var open = reading, descriptors.count > 1, descriptors[1].revents != 0 else { continue }
            reading = nil   // so the reads below mutate the one copy
            let events = descriptors[1].revents
            var outcome = Received.lost("the device went away (poll reports \(events))")
            if events & Int16(POLLIN) != 0 {
                outcome = .more
                for _ in 0..<Self.readsPerWake {
                    outcome = receive(&open, into: &buffer, recognizer: &recognizer)
                    guard case .more = outcome else { break }
                }
            }
            switch outcome {
            case .more, .drained:
                reading = open
            case .lost(let reason):
                reading = nil
                retryAt = clock() + .seconds(1)
                let text = "lost \(open.device.path) (\(open.device.name)): \(reason)"
                lastProblem = nil
                current.withLock { ($0.device, $0.deviceName, $0.problem) = (nil, nil, text) }
                warn("touch: \(text); looking for it again")
                // After the state says so: whoever the cancelled end reaches sees the device gone.
                emit(recognizer.cancel())
            case .flooded:
                reading = nil
                retryAt = clock() + floodPause
                let counted = open.flood.counted
                let text = "\(open.device.path) (\(open.device.name)) floods: \(counted.events) events, \(counted.reports) reports within a second; a stuck controller? closed for \(Self.seconds(floodPause)) s"
                floodPause = min(floodPause * 2, .seconds(8))
                lastProblem = nil
                current.withLock { ($0.device, $0.deviceName, $0.problem) = (nil, nil, text) }
                warn("touch: \(text)")
                emit(recognizer.cancel())
            }
        }
        emit(recognizer.cancel())
        reading = nil
        finished.signal()
    }

    /// A device found: its mapping, and the fingers already on it, which are ignored until
    /// they lift (a replug or restart mid-touch must not start half a gesture).
    private func opened(_ device: TouchDevice, recognizer: inout TouchRecognizer, now: Duration) -> Reading {
        let mapping = TouchMapping(x: device.x, y: device.y, settings: settings, deviceCalibration: device.calibration,
                                   picture: picture, quarterTurns: quarterTurns, panelQuarterTurns: panelQuarterTurns)
        var contacts = TouchContacts(kind: device.kind)
        let fingers = (try? device.state().get()).map { contacts.resync($0, at: now).fingers } ?? 0
        emit(recognizer.cancel(fingersRemain: fingers > 0))
        let kind = switch device.kind {
        case .multitouch(let slots): "multitouch, \(slots) slots"
        case .singleTouch: "single touch"
        }
        let calibration = settings.calibration != nil ? "config" : device.calibration != nil ? "udev" : "none"
        info("touch: reading \(device.path) (\(device.name)): \(kind), x \(device.x.minimum)...\(device.x.maximum), y \(device.y.minimum)...\(device.y.maximum), calibration \(calibration), picture \(picture.width)x\(picture.height) turned \(mapping.turns * 90)°")
        current.withLock { ($0.device, $0.deviceName, $0.problem) = (device.path, device.name, nil) }
        return Reading(device: device, contacts: contacts, mapping: mapping, openedAt: now)
    }

    /// One read of at most ``eventsPerRead`` events, each decoded and acted on.
    private func receive(_ open: inout Reading, into buffer: inout [UInt8], recognizer: inout TouchRecognizer) -> Received {
        let descriptor = open.device.descriptor
        let result = buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(SystemCallError) -> Int? in try descriptor.readIfReady(into: bytes) }
        }
        let count: Int?
        switch result {
        case .success(let read): count = read
        case .failure(let error): return .lost(error.description)
        }
        guard let count else { return .drained }
        guard count > 0 else { return .lost("end of file") }
        open.partial += buffer[0..<count]
        let whole = open.partial.count / EvdevEvent.size * EvdevEvent.size
        let events = open.partial.withUnsafeBytes { EvdevEvent.decode(UnsafeRawBufferPointer(rebasing: $0[0..<whole])) }
        open.partial.removeFirst(whole)
        for event in events {
            let time = open.device.monotonicTimes ? event.time : clock()
            if open.flood.count(event, at: time) { return .flooded }
            switch open.contacts.feed(event) {
            case .nothing:
                break
            case .frame(let frame):
                handle(frame, at: time, open: &open, recognizer: &recognizer)
            case .needsResync:
                switch open.device.state() {
                case .success(let state):
                    handle(open.contacts.resync(state, at: time), at: time, open: &open, recognizer: &recognizer)
                case .failure(let error):
                    return .lost(error.description)
                }
            }
        }
        return count == buffer.count ? .more : .drained
    }

    private func handle(_ frame: TouchContacts.Frame, at time: Duration, open: inout Reading, recognizer: inout TouchRecognizer) {
        var point: TouchPoint?
        if let raw = frame.primary {
            switch open.mapping.map(rawX: raw.x, rawY: raw.y) {
            case .inside(let inside):
                point = inside
            case .clamped(let edge):
                point = edge
                if !open.saidClamped {
                    open.saidClamped = true
                    info("touch: \(open.device.path) reported (\(raw.x), \(raw.y)), outside its range x \(open.device.x.minimum)...\(open.device.x.maximum), y \(open.device.y.minimum)...\(open.device.y.maximum) (or the calibration moves it off the glass): taken at the edge")
                }
            case .impossible:
                if !open.saidImpossible {
                    open.saidImpossible = true
                    warn("touch: \(open.device.path) reported (\(raw.x), \(raw.y)), far outside its range x \(open.device.x.minimum)...\(open.device.x.maximum), y \(open.device.y.minimum)...\(open.device.y.maximum): gesture cancelled")
                }
                emit(recognizer.cancel(fingersRemain: frame.fingers > 0))
                return
            }
        }
        emit(recognizer.contact(point, fingers: frame.fingers, at: time))
    }

    private func emit(_ gestures: [TouchGesture]) {
        guard let last = gestures.last else { return }
        current.withLock { $0.lastGesture = last.name }
        for each in gestures { gesture(each) }
    }

    private static func seconds(_ duration: Duration) -> String {
        "\(Int((duration / .seconds(1)).rounded()))"
    }
}
