import NookActivities
import NookInput
import NookProtocol

/// What each touch gesture does (T2), for the touch service; the reader's thread calls
/// ``handle(_:)`` with every gesture in order. What a press does is ``InputRules``'s to say;
/// what is the panel's own is said here.
///
/// A finger on the glass is engagement, as a hand over a proximity sensor is (the `touch`
/// input, role `hover`): the queue yields while it is down (Q6) and the `up` that ends every
/// gesture, cancelled or not, lets it go. A tap is a press of the open input, as the GPIO
/// button's: the card's default action (E3), the next recalled entry (U5), a menu's Enter (E8),
/// else, on a card, the nook opens or closes (a toggle of its own, the `touch tap` input:
/// the next cards wait while it is read). Unlike the button, a tap on an idle display only
/// closes: a touch is too easily made, and nothing on the glass would show why every card
/// waits. A swipe
/// dismisses the card, which slides off sideways. A long press recalls on an idle display (U5)
/// or snoozes the card on the glass: it ends now and comes back after ``snooze``.
final class TouchActions: Sendable {
    /// The engagement input a finger on the glass is.
    static let fingerInput = "touch"
    /// The toggle a tap makes where the button's press would open the nook (`status` lists it
    /// as `touch tap (open)`: its name, then its role).
    static let openInput = "touch tap"

    struct Effects: Sendable {
        var engagement: NookEngagement
        var queues: [NookActivityQueue]
        /// What a tap, a swipe and a long press do, as for every other way in: nookd's one set.
        var rules: InputRules
        var glass: CardsOnGlass
        var presses: InputBroadcast
        var screen: DaemonScreen?
    }

    private struct State {
        var lastGesture: String?
        var gestures = 0
        /// The finger moved the card: the `up` springs it back unless a swipe took it.
        var moved = false
        var swiped = false
    }

    /// The screen's part, in gesture order, off the reader's thread: drags faster than the
    /// display are drawn as one by the screen.
    private enum Move: Sendable { case drag(Double), release }

    private let effects: Effects
    /// The tap's toggle: it closes when the card it opened on leaves the glass, so a brush of
    /// the panel never holds the queue past the card it touched.
    private let toggle: OpenToggle
    private let snoozes: Snoozes
    private let log: @Sendable (String) -> Void
    private let state = Locked(State())
    private let moves: AsyncStream<Move>.Continuation
    private let mover: Task<Void, Never>

    init(effects: Effects, snoozes: Snoozes, log: @escaping @Sendable (String) -> Void) {
        (self.effects, self.snoozes, self.log) = (effects, snoozes, log)
        toggle = OpenToggle(input: Self.openInput, engagement: effects.engagement, opensIdle: false)
        let (stream, continuation) = AsyncStream.makeStream(of: Move.self, bufferingPolicy: .bufferingNewest(256))
        moves = continuation
        mover = Task { [screen = effects.screen] in
            for await move in stream {
                switch move {
                case .drag(let dx): await screen?.dragCard(by: dx)
                case .release: await screen?.releaseCard()
                }
            }
        }
        effects.glass.whenACardLeaves { [weak self] id in self?.cardLeft(id) }
    }

    deinit {
        moves.finish()
        mover.cancel()
    }

    var lastGesture: String? { state.withLock { $0.lastGesture } }
    var gestures: Int { state.withLock { $0.gestures } }
    var isOpen: Bool { toggle.isOpen }
    var rules: InputRules { effects.rules }

    func handle(_ gesture: TouchGesture) {
        state.withLock { state in
            state.lastGesture = gesture.name
            state.gestures += 1
        }
        switch gesture {
        case .down:
            // First, before anything is logged: this is the figure `touch_to_engaged_ms` times.
            effects.engagement.set(.hover, active: true, input: Self.fingerInput)
            state.withLock { ($0.moved, $0.swiped) = (false, false) }
        case .drag(_, let dx):
            state.withLock { $0.moved = true }
            moves.yield(.drag(dx))
        case .tap:
            tap()
        case .swipe(_, let dx):
            swipe(dx: dx)
        case .longPress:
            longPress()
        case .up(let cancelled):
            effects.engagement.set(.hover, active: false, input: Self.fingerInput)
            let (moved, swiped) = state.withLock { ($0.moved, $0.swiped) }
            if moved && !swiped { moves.yield(.release) }
            if cancelled { log("touch: the gesture was cancelled; the queue is no longer held") }
        }
    }

    /// The open input's press: ``InputRules`` decides, as for the button and the `press`
    /// operation; only the toggle is the panel's own.
    private func tap() {
        let outcome = effects.rules.open()
        switch outcome {
        case .nextRecalled, .recalled: log("touch: tap → the next recalled entry")
        case .cardAction: log("touch: tap → the card's action")
        case .appAction: log("touch: tap → the app's action")
        case .menuEnter: log("touch: tap → the menu's Enter")
        case .toggle:
            let open = toggle.toggle(on: effects.glass.current?.activity.id)
            switch open {
            case true?: log("touch: tap → the nook opens (the next cards wait until the next tap, or until this card leaves)")
            case false?: log("touch: tap → the nook closes")
            case nil: log("touch: tap on an idle display; nothing to act on")
            }
        }
        effects.presses.publish(InputMessage(input: .open, source: Self.fingerInput, taken: outcome.taken))
    }

    /// The dismiss input's press, as ``InputRules`` decides; the card slides off the way it was swiped.
    private func swipe(dx: Double) {
        state.withLock { $0.swiped = true }
        var ended: String?
        let effects = effects
        let outcome = effects.rules.dismiss(because: "swiped away") {
            guard let card = effects.glass.current else { return }
            // Marked first: the slide out the dismiss starts must find which way to go.
            effects.screen?.markSwiped(card.activity.id, dx: dx)
            effects.queues[card.queue].requestDismiss(card.activity.id)
            ended = "\(card.activity.id)"
        }
        switch (outcome, ended) {
        case (.recallEnded, _): log("touch: swipe → the recall ends")
        case (.nextApp, _): log("touch: swipe \(dx < 0 ? "left" : "right") → the next app")
        case (.cardDismissed, let id?): log("touch: swipe \(dx < 0 ? "left" : "right") → \(id) dismissed")
        case (.cardDismissed, nil): log("touch: swipe with no card on the glass; nothing to dismiss")
        }
        effects.presses.publish(InputMessage(input: .dismiss, source: Self.fingerInput))
    }

    /// A long press: a recall on an idle display (``InputRules/longPress()``), else a snooze
    /// of the card on the glass, the panel's own.
    private func longPress() {
        if effects.rules.longPress() {
            log("touch: long press → recall")
        } else if let card = effects.glass.current {
            snoozes.snooze(card.activity, inQueue: card.queue)
        } else {
            log("touch: long press with cards pending and none on the glass; nothing to recall or snooze")
        }
    }

    /// A card left the glass: if the nook was opened on it, it closes.
    func cardLeft(_ id: NookActivityID) {
        if toggle.close(ifOpenedOn: id) { log("touch: the card the nook was opened on left the glass; the nook closes") }
    }

    /// The reader stopped: a finger it had down no longer holds the queue.
    func liftFinger() {
        effects.engagement.set(.hover, active: false, input: Self.fingerInput)
    }

    /// Lets go of everything the touch input holds: the finger, and the nook a tap opened
    /// (the service stopping, or touch turned off).
    func releaseAll() {
        effects.engagement.set(.hover, active: false, input: Self.fingerInput)
        toggle.close()
    }
}
