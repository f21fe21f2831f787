/// Turns the first finger's contact with the glass into ``TouchGesture``s (T2). Pure: no I/O;
/// time comes with each call (the kernel's event time, or a test's), and ``deadline`` says when
/// to call ``tick(at:)`` if nothing else happens, for the long press and the hold limit.
///
/// Rules, in the picture's logical pixels:
/// - `.down` as soon as the first finger touches; `.up` when the last finger lifts, so every
///   gesture is closed and engagement always ends.
/// - The first finger drives the gesture; fingers that join later are counted (the gesture ends
///   only when they have all lifted) but do not move anything. When the first finger lifts
///   while others stay, its gesture is judged then, and nothing more starts until all lift.
/// - `.drag` on each sideways move once the finger has travelled more than `tapMaxMovement`
///   horizontally, farther than vertically; `dx` is the travel since `.down`.
/// - `.tap`: lifted before the long-press time, never farther than `tapMaxMovement` away.
/// - `.swipe`: lifted after dragging, with horizontal travel of at least `swipeFraction` of
///   the picture's width. Distance alone decides, not speed: a card swiped away is gone, so a
///   quick short flick that a finger makes by accident must not dismiss it.
/// - `.longPress`: still (within `tapMaxMovement`) for `longPress`; fired while down, then
///   nothing else until `.up`.
/// - A contact held longer than ``maximumHold`` (a stuck controller, something resting on the
///   glass) is cancelled, so the queue is never held for good; the fingers are then ignored
///   until they all lift.
public struct TouchRecognizer: Sendable {
    public let settings: TouchSettings
    /// The picture's width in logical pixels (the swipe threshold is a fraction of it).
    public let pictureWidth: Double
    public let maximumHold: Duration

    private enum Phase: Sendable, Equatable {
        case idle
        /// The first finger is down.
        case tracking
        /// A long press fired, or the first finger lifted (its gesture judged) while others
        /// stay: nothing more until all lift.
        case finished
        /// Cancelled (hold limit, ``cancel()``) with fingers still down: ignored until all lift.
        case ignoring
    }

    private var phase = Phase.idle
    private var start = TouchPoint(x: 0, y: 0)
    private var last = TouchPoint(x: 0, y: 0)
    private var startTime = Duration.zero
    private var dragging = false
    /// Still within `tapMaxMovement` of the start since `.down`.
    private var still = true
    private var lastDX = 0.0

    /// Thresholds that are not numbers, or negative, take their defaults (nookd's config refuses
    /// them with an error first; a gesture must never hinge on a NaN).
    public init(settings: TouchSettings, pictureWidth: Double, maximumHold: Duration = .seconds(30)) {
        var settings = settings
        let defaults = TouchSettings()
        if !(settings.swipeFraction > 0 && settings.swipeFraction.isFinite) { settings.swipeFraction = defaults.swipeFraction }
        if !(settings.tapMaxMovement >= 0 && settings.tapMaxMovement.isFinite) { settings.tapMaxMovement = defaults.tapMaxMovement }
        if settings.longPress <= .zero { settings.longPress = defaults.longPress }
        self.settings = settings
        self.pictureWidth = pictureWidth.isFinite ? max(1, pictureWidth) : 1
        self.maximumHold = maximumHold
    }

    /// True between `.down` and `.up`: a gesture is open.
    public var isOpen: Bool { phase != .idle }

    /// The horizontal travel that makes a swipe, in logical pixels.
    public var swipeDistance: Double { max(settings.tapMaxMovement, settings.swipeFraction * pictureWidth) }

    /// When ``tick(at:)`` must run if no contact arrives first; nil when nothing is pending.
    public var deadline: Duration? {
        switch phase {
        case .idle, .ignoring: nil
        case .tracking where still: min(startTime + settings.longPress, startTime + maximumHold)
        case .tracking, .finished: startTime + maximumHold
        }
    }

    /// The contact as the device reported it at `time`: where the first finger is (nil once it
    /// has lifted) and how many fingers touch.
    public mutating func contact(_ point: TouchPoint?, fingers: Int, at time: Duration) -> [TouchGesture] {
        var gestures = tick(at: time)
        switch phase {
        case .idle:
            guard let point else { return gestures }
            phase = .tracking
            (start, last, startTime, dragging, still, lastDX) = (point, point, time, false, true, 0)
            gestures.append(.down(point))
        case .tracking:
            if let point {
                gestures += moved(to: point)
            } else {
                if let judged = judged() { gestures.append(judged) }
                phase = .finished
            }
        case .finished, .ignoring:
            break
        }
        if phase != .idle, point == nil, fingers <= 0 {
            // An ignored contact was closed (cancelled) when it began to be ignored.
            if phase != .ignoring { gestures.append(.up(cancelled: false)) }
            phase = .idle
        }
        return gestures
    }

    /// Time passed with no contact: the long press, or the hold limit.
    public mutating func tick(at time: Duration) -> [TouchGesture] {
        guard phase == .tracking || phase == .finished else { return [] }
        if time >= startTime + maximumHold {
            phase = .ignoring
            return [.up(cancelled: true)]
        }
        if phase == .tracking, still, time >= startTime + settings.longPress {
            phase = .finished
            return [.longPress(last)]
        }
        return []
    }

    /// The gesture cannot go on (the device vanished, flooded, reported the impossible): an
    /// open gesture ends cancelled, and fingers still reported are ignored until all lift.
    public mutating func cancel(fingersRemain: Bool = false) -> [TouchGesture] {
        let wasOpen = phase == .tracking || phase == .finished
        phase = fingersRemain ? .ignoring : .idle
        return wasOpen ? [.up(cancelled: true)] : []
    }

    private mutating func moved(to point: TouchPoint) -> [TouchGesture] {
        last = point
        let dx = point.x - start.x, dy = point.y - start.y
        let limit = settings.tapMaxMovement
        if still, abs(dx) > limit || abs(dy) > limit { still = false }
        if !dragging, abs(dx) > limit, abs(dx) > abs(dy) { dragging = true }
        guard dragging, dx != lastDX else { return [] }
        lastDX = dx
        return [.drag(point, dx: dx)]
    }

    /// The first finger lifted: what its travel amounted to (nil: neither a tap nor a swipe,
    /// as a drag let go short of the threshold, which puts the card back).
    private func judged() -> TouchGesture? {
        let dx = last.x - start.x
        if still { return .tap(start) }
        if dragging, abs(dx) >= swipeDistance, abs(dx) > abs(last.y - start.y) { return .swipe(last, dx: dx) }
        return nil
    }
}
