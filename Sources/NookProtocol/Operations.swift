import NookActivities

/// What a client asks for: one case per operation, its request's fields as the case's values.
/// The rest of an operation is its row (``Row``: its fields, decoder, encoder, answer, scope and
/// nookctl's words), declared once in its concern's file (`CardOperations.swift` …). This file
/// holds only what Swift needs written beside the types: the case, its wire name (``Name``) and
/// the line of ``visit(_:)`` that hands the case's values to its row.
public enum NookOperation: Hashable, Sendable {
    /// `inPlace`: with a key, the live cards with that key it reaches are changed into this one
    /// (U1) and none is queued; only when none is live is it queued.
    case enqueue(NookActivity, module: String?, wait: Bool, inPlace: InPlaceReach? = nil)
    case cancel(NookActivityID)
    case cancelAll(key: String, module: String?)
    /// Dismisses the given activity, or the one on screen if `nil`.
    case dismiss(NookActivityID?)
    case suspend(module: String?)
    case resume(module: String?)
    case quiesce(module: String?)
    case status
    /// The page starting after `after` (a previous page's ``ListAnswer/cursor``), or, as
    /// version-1 clients before cursors page, `offset` activities (on screen, then pending,
    /// module by module) in; the first page with neither. `limit`: at most that many activities.
    case list(module: String?, offset: Int = 0, after: ListCursor? = nil, limit: Int? = nil)
    case watch
    case snapshot
    case home(HomeSetting)
    case focus(module: String)
    /// Shows a character-grid glance as the home content (E8); nil gives the configured home back.
    case glance(NookGlance?)
    /// Quiet hours (Z1): `on`, `off`, `until` a time, or the status.
    case quiet(QuietSetting)
    /// Lights, blinks, fades or turns off one of the three indicator lights (M1).
    case indicator(NookIndicator)
    /// Switches the display off or on, sets its brightness, or reads them (M1, M4).
    case display(DisplaySetting)
    /// Changes a pending or shown activity in place (U1).
    case update(UpdateTarget, changes: ActivityChanges, restartDwell: Bool)
    /// Streams a ``InputMessage`` for every press of an input (open, dismiss), as `watch`
    /// streams activity events: what a bridge offers its own clients as keys (E8).
    case inputs
    /// Acts as if the named input were pressed (`open` or `dismiss`); only when nookd's config
    /// sets `debug.press_inputs` (tests and boards without buttons). `holdMs`: how long the
    /// button is held, for a long press (U5's recall); nil is a short press.
    case press(NookInputName, holdMs: Int? = nil)
    /// Streams a ``IconWantedMessage`` for every LaMetric icon id nookd found in no icon
    /// directory (M3): what an icon fetcher fetches into one of them.
    case iconsWanted
    /// Invokes the default action of the card on the glass (E3), as the open input does: of
    /// the one with this id, or of whatever is on the glass if `nil`.
    case invoke(NookActivityID?)

    /// Ended activities that pass the query, oldest first (U4, U5).
    case history(HistoryQuery)
    /// One history entry.
    case historyShow(HistoryReference)
    /// Enqueues a history entry's activity again, as a new activity sent by the requester.
    case historyReplay(HistoryReference)
    /// Removes history entries: all of them for root and the admin group, else the caller's own.
    case historyClear
    /// The glass as a PNG with its generation (V1): at once, or with `after`, once the glass
    /// shows a frame newer than that generation (bounded: after ``NookProtocol/frameWaitSeconds``
    /// the frame on the glass then). A stream is a chain of these.
    case frame(after: Int?)

    /// Sets an app (A1): a new one joins the rotation, one of the same name is updated in place.
    case appSet(NookApp)
    /// Sets several apps (an AWTRIX array: APP0, APP1, …) in one step: all of them, or none and
    /// the reason the first that could not be set gives.
    case appSetAll([NookApp])
    /// Removes the named app (its sender, root or the admin group, U3).
    case appRemove(String)
    /// Every app, in the rotation's order.
    case appList
    /// One app.
    case appShow(String)
    /// The rotation moves on to its next turn (A2), or back to the one before.
    case appNext
    case appPrevious
    /// The rotation moves to the named app.
    case appSwitch(String)

    /// Plays a sound now, with no card (B4), as the room allows.
    case soundPlay(SoundRequest)
    /// Stops the sound playing.
    case soundStop
    /// Sets the volume sounds start from, gives it back to nook.toml's, or reads it (B3, M4).
    case soundVolume(SoundVolumeSetting)
}

extension NookOperation {
    /// Every operation of the protocol, by its wire name (the request's `op`), in the order
    /// nookd lists them. Each has one row in ``table`` (``entry`` is its summary: what its
    /// request carries, what it is answered with, who may ask and where nookctl offers it);
    /// nookd's handlers are keyed by the rows, nookctl's subcommands follow these names, and
    /// bridges build requests from them, never from strings (``decode(_:)``).
    public enum Name: String, CaseIterable, Hashable, Sendable {
        case enqueue, cancel
        case cancelAll = "cancel-all"
        case dismiss, suspend, resume, quiesce, status, list, watch, snapshot, home, focus, glance, quiet, indicator, display, update, inputs, press, invoke, history
        case historyShow = "history-show"
        case historyReplay = "history-replay"
        case historyClear = "history-clear"
        case frame
        case appSet = "app-set"
        case appSetAll = "app-set-all"
        case appRemove = "app-rm"
        case appList = "app-list"
        case appShow = "app-show"
        case appNext = "app-next"
        case appPrevious = "app-previous"
        case appSwitch = "app-switch"
        case soundPlay = "sound-play"
        case soundStop = "sound-stop"
        case soundVolume = "sound-volume"
        case iconsWanted = "icons-wanted"
    }

    /// The wire names, in the table's order (the `unknownOperation` error lists them).
    public static let names = Name.allCases.map(\.rawValue)

    /// Where nookctl offers an operation.
    public enum Command: Hashable, Sendable {
        /// `nookctl NAME`: a subcommand named as the operation.
        case subcommand
        /// `nookctl GROUP WORD` (`nookctl history show`): a subcommand of a group.
        case grouped(String, String)
        /// `nookctl WORD`: a subcommand named other than the operation (`frame` is `screenshot`).
        case named(String)
        /// Not a subcommand: only bridges send it (subscriptions, a bridge's own home content,
        /// the buttons simulated for tests).
        case bridgesOnly
    }

    /// Who may ask for an operation (U3); nookd's dispatch refuses the others before the
    /// operation's handler runs.
    public enum Scope: Hashable, Sendable {
        /// Anyone who may use the socket: reading, sending cards, a bridge's subscriptions.
        case anyone
        /// Anyone, on what is their own: the cards their uid sent, or only those of the
        /// `sender` they state; root and the admin group on everyone's (U3).
        case own
        /// A whole-device change: root and the admin group only. The words name it in the
        /// refusal ("may not set the home content").
        case device(String)
        /// Only when nookd's config sets `debug.press_inputs` (tests, boards without buttons).
        case debug
    }

    /// Hands this operation's row and the case's values, typed as the row declares them, to
    /// `visitor`: the one place a case meets its row. Encoding, the name, the scope and nookd's
    /// dispatch are visitors; a row of one type of fields cannot be handed another's.
    public func visit<Visitor: NookOperationVisitor>(_ visitor: Visitor) -> Visitor.Result {
        // Each row is read where it is stored, not from a copy of the whole table.
        switch self {
        case .enqueue(let activity, let module, let wait, let inPlace): visitor.visit(CardOperations.shared.enqueue, (activity, module, wait, inPlace))
        case .cancel(let id): visitor.visit(CardOperations.shared.cancel, id)
        case .cancelAll(let key, let module): visitor.visit(CardOperations.shared.cancelAll, (key, module))
        case .dismiss(let id): visitor.visit(CardOperations.shared.dismiss, id)
        case .suspend(let module): visitor.visit(ModuleOperations.shared.suspend, module)
        case .resume(let module): visitor.visit(ModuleOperations.shared.resume, module)
        case .quiesce(let module): visitor.visit(ModuleOperations.shared.quiesce, module)
        case .status: visitor.visit(ReadingOperations.shared.status, ())
        case .list(let module, let offset, let after, let limit): visitor.visit(ModuleOperations.shared.list, (module, offset, after, limit))
        case .watch: visitor.visit(ReadingOperations.shared.watch, ())
        case .snapshot: visitor.visit(ReadingOperations.shared.snapshot, ())
        case .home(let setting): visitor.visit(DeviceOperations.shared.home, setting)
        case .focus(let module): visitor.visit(ModuleOperations.shared.focus, module)
        case .glance(let glance): visitor.visit(DeviceOperations.shared.glance, glance)
        case .quiet(let setting): visitor.visit(DeviceOperations.shared.quiet, setting)
        case .indicator(let setting): visitor.visit(DeviceOperations.shared.indicator, setting)
        case .display(let setting): visitor.visit(DeviceOperations.shared.display, setting)
        case .update(let target, let changes, let restartDwell): visitor.visit(CardOperations.shared.update, (target, changes, restartDwell))
        case .inputs: visitor.visit(ReadingOperations.shared.inputs, ())
        case .press(let input, let holdMs): visitor.visit(DeviceOperations.shared.press, (input, holdMs))
        case .invoke(let id): visitor.visit(CardOperations.shared.invoke, id)
        case .history(let query): visitor.visit(HistoryOperations.shared.history, query)
        case .historyShow(let reference): visitor.visit(HistoryOperations.shared.historyShow, reference)
        case .historyReplay(let reference): visitor.visit(HistoryOperations.shared.historyReplay, reference)
        case .historyClear: visitor.visit(HistoryOperations.shared.historyClear, ())
        case .frame(let after): visitor.visit(ReadingOperations.shared.frame, after)
        case .appSet(let app): visitor.visit(AppOperations.shared.appSet, app)
        case .appSetAll(let apps): visitor.visit(AppOperations.shared.appSetAll, apps)
        case .appRemove(let name): visitor.visit(AppOperations.shared.appRemove, name)
        case .appList: visitor.visit(AppOperations.shared.appList, ())
        case .appShow(let name): visitor.visit(AppOperations.shared.appShow, name)
        case .appNext: visitor.visit(AppOperations.shared.appNext, ())
        case .appPrevious: visitor.visit(AppOperations.shared.appPrevious, ())
        case .appSwitch(let name): visitor.visit(AppOperations.shared.appSwitch, name)
        case .soundPlay(let request): visitor.visit(SoundOperations.shared.soundPlay, request)
        case .soundStop: visitor.visit(SoundOperations.shared.soundStop, ())
        case .soundVolume(let setting): visitor.visit(SoundOperations.shared.soundVolume, setting)
        case .iconsWanted: visitor.visit(ReadingOperations.shared.iconsWanted, ())
        }
    }
}
