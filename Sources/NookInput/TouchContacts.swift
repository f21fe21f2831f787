/// A touch device's fingers, put together from its evdev events one report (`SYN_REPORT`) at a
/// time: multitouch protocol B (slots and tracking ids) or single-touch absolute axes
/// (`ABS_X`/`ABS_Y` with `BTN_TOUCH`). Pure: the events come from any descriptor, or a test.
///
/// The first finger to touch a bare glass is the primary one, which drives gestures; when it
/// lifts while others stay, none becomes primary until all have lifted.
/// After `SYN_DROPPED` (the kernel's buffer overflowed) events are discarded up to the next
/// report, and the device's state is read back whole (``DeviceState``) instead of replayed.
public struct TouchContacts: Sendable {
    public enum Kind: Hashable, Sendable {
        case multitouch(slots: Int)
        case singleTouch
    }

    /// Raw axis values of one point.
    public struct RawPoint: Hashable, Sendable {
        public var x: Int32
        public var y: Int32
        public init(x: Int32, y: Int32) { (self.x, self.y) = (x, y) }
    }

    /// One multitouch slot: its tracking id (-1: no finger) and position.
    public struct Slot: Hashable, Sendable {
        public var id: Int32
        public var x: Int32
        public var y: Int32
        public init(id: Int32, x: Int32, y: Int32) { (self.id, self.x, self.y) = (id, x, y) }
    }

    /// The fingers after one report.
    public struct Frame: Hashable, Sendable {
        /// The primary finger's position; nil when it is not down.
        public var primary: RawPoint?
        public var fingers: Int
        public var time: Duration
    }

    /// The device's whole state, read back through ioctls after events were dropped.
    public struct DeviceState: Hashable, Sendable {
        /// Per slot: tracking id (-1: no finger), x, y. Empty for single touch.
        public var slots: [Slot]
        public var currentSlot: Int32
        /// Single touch: `BTN_TOUCH` and the position.
        public var touching: Bool
        public var x: Int32
        public var y: Int32

        public init(slots: [Slot] = [], currentSlot: Int32 = 0, touching: Bool = false, x: Int32 = 0, y: Int32 = 0) {
            (self.slots, self.currentSlot, self.touching, self.x, self.y) = (slots, currentSlot, touching, x, y)
        }
    }

    /// What one event amounted to.
    public enum Outcome: Hashable, Sendable {
        case nothing
        /// A report completed: the fingers now.
        case frame(Frame)
        /// The report after a drop completed: read the device's state and pass it to ``resync(_:at:)``.
        case needsResync(at: Duration)
    }

    /// The most slots tracked; a device claiming more keeps its first ones.
    public static let maximumSlots = 32

    public let kind: Kind
    private var slots: [Slot]
    private var currentSlot: Int?
    private var touching = false
    private var single = RawPoint(x: 0, y: 0)
    private var primarySlot: Int?
    private var primaryID: Int32 = -1
    /// The primary finger lifted while others stayed: no new primary until all lift.
    private var waitingForAllUp = false
    private var dropping = false

    public init(kind: Kind) {
        self.kind = kind
        let count = if case .multitouch(let slots) = kind { min(max(slots, 1), Self.maximumSlots) } else { 0 }
        slots = Array(repeating: Slot(id: -1, x: 0, y: 0), count: count)
        currentSlot = 0
    }

    /// Whether any finger is down as far as the events so far say.
    public var anyFingerDown: Bool {
        switch kind {
        case .multitouch: slots.contains { $0.id >= 0 }
        case .singleTouch: touching
        }
    }

    public mutating func feed(_ event: EvdevEvent) -> Outcome {
        if event.type == Evdev.synchronize {
            switch event.code {
            case Evdev.dropped:
                dropping = true
                return .nothing
            case Evdev.report:
                if dropping {
                    dropping = false
                    return .needsResync(at: event.time)
                }
                return .frame(frame(at: event.time))
            default:
                return .nothing
            }
        }
        guard !dropping else { return .nothing }
        switch kind {
        case .multitouch:
            guard event.type == Evdev.absolute else { return .nothing }
            switch event.code {
            case Evdev.slot:
                currentSlot = event.value >= 0 && Int(event.value) < slots.count ? Int(event.value) : nil
            case Evdev.trackingID:
                if let slot = currentSlot { slots[slot].id = max(-1, event.value) }
            case Evdev.positionX:
                if let slot = currentSlot { slots[slot].x = event.value }
            case Evdev.positionY:
                if let slot = currentSlot { slots[slot].y = event.value }
            default:
                break
            }
        case .singleTouch:
            if event.type == Evdev.key, event.code == Evdev.buttonTouch {
                touching = event.value != 0
            } else if event.type == Evdev.absolute, event.code == Evdev.x {
                single.x = event.value
            } else if event.type == Evdev.absolute, event.code == Evdev.y {
                single.y = event.value
            }
        }
        return .nothing
    }

    /// Takes the device's state as read back after a drop: the fingers now.
    public mutating func resync(_ state: DeviceState, at time: Duration) -> Frame {
        switch kind {
        case .multitouch:
            for index in slots.indices {
                slots[index] = index < state.slots.count ? state.slots[index] : Slot(id: -1, x: 0, y: 0)
            }
            currentSlot = state.currentSlot >= 0 && Int(state.currentSlot) < slots.count ? Int(state.currentSlot) : nil
        case .singleTouch:
            touching = state.touching
            single = RawPoint(x: state.x, y: state.y)
        }
        return frame(at: time)
    }

    private mutating func frame(at time: Duration) -> Frame {
        switch kind {
        case .singleTouch:
            return Frame(primary: touching ? single : nil, fingers: touching ? 1 : 0, time: time)
        case .multitouch:
            let down = slots.indices.filter { slots[$0].id >= 0 }
            if let slot = primarySlot, slots[slot].id != primaryID {
                // Lifted, or the slot now holds another finger (lifted and touched within one report).
                primarySlot = nil
                waitingForAllUp = !down.isEmpty
            }
            if down.isEmpty { waitingForAllUp = false }
            if primarySlot == nil, !waitingForAllUp, let first = down.first {
                primarySlot = first
                primaryID = slots[first].id
            }
            let primary = primarySlot.map { RawPoint(x: slots[$0].x, y: slots[$0].y) }
            return Frame(primary: primary, fingers: down.count, time: time)
        }
    }
}
