#if canImport(Glibc)
import Glibc
#endif
import NookActivities
@testable import NookInput
import NookSystem
import NookTestSupport
import Testing

/// T1: the reader decodes evdev events from a descriptor. A pipe stands in for the device
/// file (the kernel's own evdev is exercised in the VM, `Hardware/vm/run touch`).
@Suite("T1 touch device reader", .serialized)
struct TouchReaderTests {
    /// Hands out stand-in devices in order, then reports none.
    final class StandInSource: TouchDeviceSource {
        let devices = Locked<[TouchDevice]>([])
        let asked = Locked(0)
        func find(_ wanted: String?, note: (String) -> Void) -> Result<TouchDevice, TouchFindProblem> {
            asked.withLock { $0 += 1 }
            if let device = devices.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return .success(device) }
            return .failure(TouchFindProblem("no stand-in device left"))
        }
    }

    /// A pipe whose read end is the device; the test writes the kernel's events into the other.
    final class StandInDevice: Sendable {
        let device: TouchDevice
        let writer: Locked<FileDescriptor?>
        /// What the device's state ioctls would say (after `SYN_DROPPED`).
        let state = Locked(TouchContacts.DeviceState())

        init(path: String, kind: TouchContacts.Kind = .multitouch(slots: 10), x: TouchAxisRange = TouchAxisRange(minimum: 0, maximum: 1280),
             y: TouchAxisRange = TouchAxisRange(minimum: 0, maximum: 400)) throws {
            var ends: [Int32] = [-1, -1]
            _ = try systemCall("pipe") { pipe(&ends) }
            let reader = FileDescriptor(owning: ends[0], name: path)
            try reader.setNonBlocking()
            writer = Locked(FileDescriptor(owning: ends[1], name: "stand-in writer"))
            let state = self.state
            device = TouchDevice(descriptor: reader, path: path, name: "Stand-in Touch", kind: kind, x: x, y: y, calibration: nil,
                                 readState: { _ in .success(state.withLock { $0 }) })
        }

        func write(_ events: [EvdevEvent]) throws {
            let bytes = events.flatMap(\.bytes)
            try writer.withLock { writer in
                try bytes.withUnsafeBytes { buffer in try writer?.writeAll(buffer) }
            }
        }

        /// The device is unplugged: the read end sees end of file.
        func unplug() { writer.withLock { $0 = nil } }
    }

    /// Gestures and log lines as the reader hands them over.
    final class Recorder: Sendable {
        let gestures = Locked<[TouchGesture]>([])
        let warnings = Locked<[String]>([])
        let infos = Locked<[String]>([])

        /// Waits (bounded) until `predicate` holds for the gestures so far.
        func wait(_ what: String, _ predicate: ([TouchGesture]) -> Bool) -> [TouchGesture] {
            let deadline = MonotonicClock.now + TestBounds.duration(.seconds(10))
            while MonotonicClock.now < deadline {
                let now = gestures.withLock { $0 }
                if predicate(now) { return now }
                usleep(2_000)
            }
            let now = gestures.withLock { $0 }
            Issue.record("timed out waiting for \(what); gestures: \(now)")
            return now
        }
    }

    /// No long press unless a test asks for one: a loaded machine may take long between writes.
    func reader(_ source: StandInSource, _ recorder: Recorder, settings: TouchSettings = TouchSettings(longPress: .seconds(60)), quarterTurns: Int = 0) -> TouchInput {
        TouchInput(settings: settings, picture: (1280, 400), quarterTurns: quarterTurns, panelQuarterTurns: 0, source: source,
                   clock: { MonotonicClock.now },
                   gesture: { gesture in recorder.gestures.withLock { $0.append(gesture) } },
                   info: { line in recorder.infos.withLock { $0.append(line) } },
                   warn: { line in recorder.warnings.withLock { $0.append(line) } })
    }

    /// Protocol B: one finger in slot 0 (a new tracking id when `id` is given), then SYN_REPORT.
    static func finger(id: Int32? = nil, x: Int32? = nil, y: Int32? = nil, slot: Int32 = 0, at time: Duration) -> [EvdevEvent] {
        var events = [EvdevEvent(time: time, type: Evdev.absolute, code: Evdev.slot, value: slot)]
        if let id { events.append(EvdevEvent(time: time, type: Evdev.absolute, code: Evdev.trackingID, value: id)) }
        if let x { events.append(EvdevEvent(time: time, type: Evdev.absolute, code: Evdev.positionX, value: x)) }
        if let y { events.append(EvdevEvent(time: time, type: Evdev.absolute, code: Evdev.positionY, value: y)) }
        events.append(report(time))
        return events
    }

    static func report(_ time: Duration) -> EvdevEvent { EvdevEvent(time: time, type: Evdev.synchronize, code: Evdev.report, value: 0) }

    static func isUp(_ gesture: TouchGesture?) -> Bool { if case .up = gesture { true } else { false } }

    @Test func t1_aMultitouchTapIsReadFromTheDeviceAndShownInTheState() throws {
        let source = StandInSource(), recorder = Recorder()
        let device = try StandInDevice(path: "/dev/input/event7")
        source.devices.withLock { $0 = [device.device] }
        let touch = reader(source, recorder)
        touch.start()
        defer { touch.stop() }
        let t = MonotonicClock.now
        try device.write(Self.finger(id: 41, x: 640, y: 200, at: t) + Self.finger(x: 642, at: t + .milliseconds(30))
                         + Self.finger(id: -1, at: t + .milliseconds(90)))
        let gestures = recorder.wait("a tap") { $0.count >= 3 }
        #expect(gestures.count == 3)
        #expect(gestures.first == .down(TouchPoint(x: 640, y: 200)))
        if case .tap = gestures.dropFirst().first {} else { Issue.record("expected a tap, got \(gestures)") }
        #expect(gestures.last == .up(cancelled: false))
        let state = touch.state
        #expect(state.device == "/dev/input/event7" && state.deviceName == "Stand-in Touch")
        #expect(state.lastGesture == "up" && state.problem == nil)
        #expect(recorder.infos.withLock { $0 }.contains { $0.contains("reading /dev/input/event7 (Stand-in Touch): multitouch") })
    }

    @Test func t1_aSingleTouchSwipeInAQuarterTurn() throws {
        // The picture is 1280x400 turned a quarter: the glass is 400 wide, 1280 high, and the
        // picture's x runs down the glass.
        let source = StandInSource(), recorder = Recorder()
        let device = try StandInDevice(path: "/dev/input/event2", kind: .singleTouch,
                                       x: TouchAxisRange(minimum: 0, maximum: 400), y: TouchAxisRange(minimum: 0, maximum: 1280))
        source.devices.withLock { $0 = [device.device] }
        let touch = reader(source, recorder, quarterTurns: 1)
        touch.start()
        defer { touch.stop() }
        let t = MonotonicClock.now
        var events: [EvdevEvent] = []
        events += [EvdevEvent(time: t, type: Evdev.key, code: Evdev.buttonTouch, value: 1),
                   EvdevEvent(time: t, type: Evdev.absolute, code: Evdev.x, value: 200),
                   EvdevEvent(time: t, type: Evdev.absolute, code: Evdev.y, value: 100), Self.report(t)]
        for step in 1...5 {
            let time = t + .milliseconds(16 * step)
            events += [EvdevEvent(time: time, type: Evdev.absolute, code: Evdev.y, value: Int32(100 + 60 * step)), Self.report(time)]
        }
        events += [EvdevEvent(time: t + .milliseconds(100), type: Evdev.key, code: Evdev.buttonTouch, value: 0), Self.report(t + .milliseconds(100))]
        try device.write(events)
        let gestures = recorder.wait("a swipe") { Self.isUp($0.last) }
        #expect(gestures.first == .down(TouchPoint(x: 100, y: 200)))
        #expect(gestures.dropLast().last == .swipe(TouchPoint(x: 400, y: 200), dx: 300))
        #expect(gestures.last == .up(cancelled: false))
    }

    @Test func t1_aDeviceThatVanishesMidGestureEndsItCancelledAndAReplugWorks() throws {
        let source = StandInSource(), recorder = Recorder()
        let first = try StandInDevice(path: "/dev/input/event5")
        source.devices.withLock { $0 = [first.device] }
        let touch = reader(source, recorder)
        touch.start()
        defer { touch.stop() }
        let t = MonotonicClock.now
        try first.write(Self.finger(id: 1, x: 100, y: 100, at: t) + Self.finger(x: 200, at: t + .milliseconds(20)))
        _ = recorder.wait("a drag") { $0.count == 2 }
        first.unplug()
        let gestures = recorder.wait("the cancelled end") { Self.isUp($0.last) }
        #expect(gestures.last == .up(cancelled: true))
        #expect(touch.state.device == nil)
        #expect(recorder.warnings.withLock { $0 }.contains { $0.contains("lost /dev/input/event5 (Stand-in Touch)") && $0.contains("looking for it again") })
        // Plugged in again: found on the next look, and taps work.
        let second = try StandInDevice(path: "/dev/input/event5")
        source.devices.withLock { $0 = [second.device] }
        let found = MonotonicClock.now + TestBounds.duration(.seconds(10))
        while touch.state.device == nil, MonotonicClock.now < found { usleep(5_000) }
        #expect(touch.state.device == "/dev/input/event5")
        let u = MonotonicClock.now
        try second.write(Self.finger(id: 2, x: 10, y: 25, at: u) + Self.finger(id: -1, at: u + .milliseconds(50)))
        let after = recorder.wait("a tap after the replug") { $0.count >= gestures.count + 3 }
        #expect(Array(after.suffix(3)) == [.down(TouchPoint(x: 10, y: 25)), .tap(TouchPoint(x: 10, y: 25)), .up(cancelled: false)])
    }

    @Test func t1_aFloodingDeviceIsClosedAndItsGestureEnded() throws {
        let source = StandInSource(), recorder = Recorder()
        let device = try StandInDevice(path: "/dev/input/event9")
        source.devices.withLock { $0 = [device.device] }
        let touch = reader(source, recorder)
        touch.start()
        defer { touch.stop() }
        let t = MonotonicClock.now
        // A stuck controller: a report every 100 µs, 10,000 a second, the finger never lifting.
        var events = Self.finger(id: 3, x: 500, y: 100, at: t)
        for index in 1...1_100 {
            let time = t + .microseconds(100 * index)
            events += [EvdevEvent(time: time, type: Evdev.absolute, code: Evdev.positionX, value: Int32(500 + index % 2)), Self.report(time)]
        }
        try device.write(events)
        let gestures = recorder.wait("the flood's cancelled end") { Self.isUp($0.last) }
        #expect(gestures.first == .down(TouchPoint(x: 500, y: 100)))
        #expect(gestures.last == .up(cancelled: true))
        #expect(gestures.count == 2)
        #expect(recorder.warnings.withLock { $0 }.contains { $0.contains("/dev/input/event9 (Stand-in Touch) floods") })
    }

    @Test func t1_afterDroppedEventsTheDevicesStateIsReadBack() throws {
        let source = StandInSource(), recorder = Recorder()
        let device = try StandInDevice(path: "/dev/input/event4")
        source.devices.withLock { $0 = [device.device] }
        let touch = reader(source, recorder)
        touch.start()
        defer { touch.stop() }
        let t = MonotonicClock.now
        try device.write(Self.finger(id: 8, x: 300, y: 300, at: t))
        _ = recorder.wait("the down") { $0.count == 1 }
        // The buffer overflowed; the lift was among the events lost. The state says so.
        device.state.withLock { $0 = TouchContacts.DeviceState(slots: [.init(id: -1, x: 300, y: 300)], currentSlot: 0) }
        try device.write([EvdevEvent(time: t + .milliseconds(40), type: Evdev.synchronize, code: Evdev.dropped, value: 0),
                          EvdevEvent(time: t + .milliseconds(41), type: Evdev.absolute, code: Evdev.positionX, value: 900),
                          Self.report(t + .milliseconds(42))])
        let gestures = recorder.wait("the lift") { Self.isUp($0.last) }
        #expect(gestures == [.down(TouchPoint(x: 300, y: 300)), .tap(TouchPoint(x: 300, y: 300)), .up(cancelled: false)],
                "the x of 900 inside the dropped stretch is not taken")
    }

    @Test func t1_impossibleCoordinatesCancelTheGestureAndAreLoggedOnce() throws {
        let source = StandInSource(), recorder = Recorder()
        let device = try StandInDevice(path: "/dev/input/event3")
        source.devices.withLock { $0 = [device.device] }
        let touch = reader(source, recorder)
        touch.start()
        defer { touch.stop() }
        let t = MonotonicClock.now
        try device.write(Self.finger(id: 1, x: 100, y: 100, at: t) + Self.finger(x: 60_000, at: t + .milliseconds(10))
                         + Self.finger(x: 70_000, at: t + .milliseconds(20)) + Self.finger(id: -1, at: t + .milliseconds(30))
                         + Self.finger(id: 2, x: 20, y: 50, at: t + .milliseconds(100)) + Self.finger(id: -1, at: t + .milliseconds(130)))
        let gestures = recorder.wait("the next tap") { $0.count >= 5 }
        #expect(gestures == [.down(TouchPoint(x: 100, y: 100)), .up(cancelled: true),
                             .down(TouchPoint(x: 20, y: 50)), .tap(TouchPoint(x: 20, y: 50)), .up(cancelled: false)])
        #expect(recorder.warnings.withLock { $0 }.filter { $0.contains("far outside its range") }.count == 1)
    }

    @Test func t1_aFingerHeldStillIsALongPressWithNoFurtherEvents() throws {
        let source = StandInSource(), recorder = Recorder()
        let device = try StandInDevice(path: "/dev/input/event6")
        source.devices.withLock { $0 = [device.device] }
        let touch = reader(source, recorder, settings: TouchSettings(longPress: .milliseconds(100)))
        touch.start()
        defer { touch.stop() }
        // Touch controllers send nothing while a finger rests still: the reader's own deadline fires it.
        try device.write(Self.finger(id: 1, x: 100, y: 100, at: MonotonicClock.now))
        let gestures = recorder.wait("the long press") { $0.count >= 2 }
        #expect(gestures == [.down(TouchPoint(x: 100, y: 100)), .longPress(TouchPoint(x: 100, y: 100))])
        try device.write(Self.finger(id: -1, at: MonotonicClock.now))
        #expect(recorder.wait("the up") { Self.isUp($0.last) }.last == .up(cancelled: false))
    }

    @Test func t1_stoppingMidGestureClosesIt() throws {
        let source = StandInSource(), recorder = Recorder()
        let device = try StandInDevice(path: "/dev/input/event1")
        source.devices.withLock { $0 = [device.device] }
        let touch = reader(source, recorder)
        touch.start()
        try device.write(Self.finger(id: 1, x: 100, y: 100, at: MonotonicClock.now))
        _ = recorder.wait("the down") { $0.count == 1 }
        touch.stop()
        #expect(recorder.gestures.withLock { $0 } == [.down(TouchPoint(x: 100, y: 100)), .up(cancelled: true)])
    }

    @Test func t1_noDeviceIsAWarningNamingWhatIsMissingAndIsLookedForAgain() throws {
        let source = StandInSource(), recorder = Recorder()
        let touch = reader(source, recorder)
        touch.start()
        defer { touch.stop() }
        let deadline = MonotonicClock.now + TestBounds.duration(.seconds(10))
        while source.asked.withLock({ $0 }) < 2, MonotonicClock.now < deadline { usleep(5_000) }
        #expect(source.asked.withLock { $0 } >= 2, "looked for again")
        #expect(recorder.warnings.withLock { $0 } == ["touch: no stand-in device left; running without touch until one appears"], "warned once")
        #expect(touch.state.problem == "no stand-in device left" && touch.state.device == nil)
    }

    @Test func t1_aFloodIsCountedOnTheEventsOwnTime() {
        var guardian = TouchFloodGuard()
        let x = EvdevEvent(time: .zero, type: Evdev.absolute, code: Evdev.x, value: 1)
        // 8,000 events in a second is the most a touch controller is allowed.
        var early = 0
        for index in 0..<TouchFloodGuard.maximumEventsPerSecond where guardian.count(x, at: .microseconds(100 * index)) { early += 1 }
        #expect(early == 0)
        let next = guardian.count(x, at: .milliseconds(800))
        #expect(next, "the next within the same second floods")
        let later = guardian.count(x, at: .milliseconds(1900))
        #expect(!later, "a new second starts counting again")
        var calm = TouchFloodGuard()
        // A 240 Hz panel with five fingers, for three seconds: never a flood.
        var flooded = false
        for report in 0..<720 {
            let time = Duration.microseconds(4_167 * report)
            for _ in 0..<15 { flooded = flooded || calm.count(x, at: time) }
            flooded = flooded || calm.count(Self.report(time), at: time)
        }
        #expect(!flooded)
    }
}
