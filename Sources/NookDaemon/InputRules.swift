import NookActivities
import NookProtocol

/// What a press of Nook's inputs does, decided here and only here, whichever way it comes in:
/// the GPIO button (I1), a touch of the panel (T2), the socket's `press` (`debug.press_inputs`)
/// and, through the `inputs` stream's `taken`, nook-lcdproc's keys (E8).
///
/// - open, short: the next recalled entry (U5), else the default action of the card on the
///   glass (E3), else a menu on the glance takes it as its Enter (E8), else the toggle of the
///   way it came in (I3: hover OR open; each way has a toggle of its own).
/// - open, held (a long press): a recall on an idle display (U5); on a card the touch panel
///   snoozes it (T2), the button leaves it the short press it began as.
/// - dismiss: a running recall ends (U5), else on an idle display with apps the rotation moves
///   on to its next turn (A4), else the card on the glass is dismissed.
/// - open on an app with an action (A4): its sender hears `invoked`, as for a card's (E3).
struct InputRules: Sendable {
    let queues: [NookActivityQueue]
    let recall: HistoryRecall
    let actionCards: ActionCards
    /// A menu on the glance takes open's press as its Enter (E8).
    let menuTakesOpen: @Sendable () -> Bool
    /// The apps' rotation (A4); nil where none runs (tests of the other rules). Said at every
    /// construction, never defaulted: a construction that left it out would drop the app rules.
    let apps: AppRotation?

    /// What a press of open did.
    enum Open: Equatable, Sendable {
        /// A recall ran: it moved on to its next entry (U5).
        case nextRecalled
        /// Held long enough on an idle display: a recall started (U5).
        case recalled
        /// The card on the glass was told to run its default action (E3).
        case cardAction
        /// The app on the glass was told to run its action (A4).
        case appAction
        /// Nothing here took it: a menu on the glance takes it as its Enter (E8).
        case menuEnter
        /// Nothing took it: the way it came in toggles its own open input.
        case toggle

        /// Whether the press acted on what is on the glass. Such a press is not also a key for
        /// nook-lcdproc's clients (the `inputs` stream's `taken`): the menu or a client under the
        /// card would act on a press meant for the card.
        var taken: Bool {
            switch self {
            case .nextRecalled, .recalled, .cardAction, .appAction: true
            case .menuEnter, .toggle: false
            }
        }

        /// Whether the way it came in leaves its toggle alone (everything but ``toggle``).
        var keepsToggle: Bool { self != .toggle }
    }

    /// A press of open. `held`: how long it was held when that is known at once (the socket's
    /// `press` says it; a button's hold is only known later, see ``longPress()``); the toggle a
    /// long press would take back is then never made.
    func open(held: Duration? = nil) -> Open {
        if recall.advance() { return .nextRecalled }
        if let held, let hold = recall.settings.hold, held >= hold, recall.start() { return .recalled }
        if apps?.pressedOpen() == true { return .appAction }
        if actionCards.anyOnGlass {
            // Only one module's card is on the glass; the others have nothing to invoke. The
            // device's own input acts on any card, whoever sent it (U3).
            queues.forEach { $0.requestInvokeCurrent() }
            return .cardAction
        }
        return menuTakesOpen() ? .menuEnter : .toggle
    }

    /// A long press of open, known once the hold has lasted: true when a recall started (the
    /// display was idle); false leaves the press as it was (the touch panel then snoozes the card).
    func longPress() -> Bool { recall.start() }

    /// What a press of dismiss did.
    enum Dismiss: Equatable, Sendable {
        /// A recall ran: the card on the glass was a recalled one, and the recall ended (U5).
        case recallEnded
        /// The card on the glass was told to go (the queue does nothing if none is there).
        case cardDismissed
        /// No card was live: the apps' rotation moved on to its next turn (A4).
        case nextApp
    }

    /// A press of dismiss. `endCard`: how the way it came in ends the card on the glass (the
    /// touch panel's swipe names the card and which way it slides); by default every queue's
    /// current card (only one module's card is on the glass; the others have nothing to dismiss).
    @discardableResult
    func dismiss(because reason: String, endCard: (() -> Void)? = nil) -> Dismiss {
        if recall.end(because: reason) { return .recallEnded }
        if apps?.pressedNext() == true { return .nextApp }
        if let endCard { endCard() } else { queues.forEach { $0.requestDismissCurrent() } }
        return .cardDismissed
    }
}

extension ServiceWiring {
    /// The one ``InputRules`` of nookd, built the first time a way in asks for it: the button,
    /// the touch panel and the socket's `press` act by the same rules, apps included.
    /// The recall and the apps are asked for at each call: each service given the rules is
    /// recorded as given them.
    func inputRules() throws(DaemonError) -> InputRules {
        let (recall, apps) = (try part(Service.Recall.self).recall, try part(Service.Apps.self).rotation)
        if let rules = builtInputRules { return rules }
        let rules = InputRules(queues: try moduleQueues, recall: recall, actionCards: actionCards,
                               menuTakesOpen: Daemon.MenuClaim.takesOpen(menuOnGlance), apps: apps)
        builtInputRules = rules
        return rules
    }
}

extension Daemon.MenuClaim {
    /// ``InputRules/menuTakesOpen`` for the claim a glance's menu holds: live until its lease runs out.
    static func takesOpen(_ claim: Locked<Daemon.MenuClaim?>) -> @Sendable () -> Bool {
        { claim.withLock { $0?.isLive == true } }
    }
}
