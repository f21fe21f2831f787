import NookActivities
import NookAudio
import NookLogging
import NookSound

/// B2: a card's sound played more than once (`soundRepeat`): a count, or until someone engages.
/// The output plays the plays one after another on its own thread; this says how many, and
/// stops them early: a repeat until engaged when the card is engaged, leaves the glass
/// (dismissed, timed out, pushed back by a more urgent card) or its escalation ends (the plays
/// fill no longer than the escalation's steps take), any repeat when its card is dismissed or
/// quiet hours begin (checked every ``roomCheck`` while it plays, as `nookctl quiet on` checks
/// at once). A newer sound cuts it off as it cuts off any sound.
final class SoundRepeats: Sendable {
    /// How long a blocker's repeat until engaged may fill: until its escalation's last step
    /// (`escalation.after_s` and `every_s` for each further step); nil without steps.
    let escalation: Duration?
    private let engagement: NookEngagement?
    /// nookd's injected clock, which the sound service's other timings read too.
    let clock: any NookClock
    private let note: @Sendable (NookActivityID, String) -> Void
    private let logger: Logger
    /// A card's repeat that plays now.
    struct Playing {
        var id: NookActivityID
        var name: String
        var untilEngaged: Bool
        /// What its entry says: `played, 3 times`.
        var note: String
    }

    private let playing = Locked<Playing?>(nil)
    /// The repeat last stopped as its card left the glass, until that card's end says why it left.
    private let leftGlass = Locked<Playing?>(nil)
    static let leftGlassWhy = "the card left the glass"
    private let stops = StopActions()
    /// The output and the sound service's room check, once started; the task that looks at
    /// the room while a repeat plays.
    private let room = Locked<(output: any SoundOutput, changed: KeptClosure<@Sendable () async -> Void>)?>(nil)
    private let roomWatch = Locked<Task<Void, Never>?>(nil)
    /// How often a repeat's room is looked at again while it plays: a schedule's quiet hours
    /// starting cut it off within this.
    static let roomCheck: Duration = .seconds(30)

    init(escalation: Duration?, engagement: NookEngagement?, clock: any NookClock, logger: Logger,
         note: @escaping @Sendable (NookActivityID, String) -> Void = { _, _ in }) {
        (self.escalation, self.engagement, self.clock, self.logger, self.note) = (escalation, engagement, clock, logger, note)
    }

    /// `base` as `activity` asks it played: once, a count of times, or as many times as fill
    /// its escalation (a blocker's) or the 15 minutes' bound, stopped when it is engaged (once
    /// where someone is engaged already).
    func program(_ base: SoundProgram, for activity: NookActivity) -> SoundProgram {
        switch activity.soundRepeat {
        case nil, .times(1)?: base
        case .times(let count)?: .repeated(base, SoundRepeat(.count(count)))
        // Someone engaged already as it slides in: its repeat has done its work with one play.
        case .untilEngaged? where engagement?.isEngaged == true: base
        case .untilEngaged?:
            .repeated(base, SoundRepeat(.filling(activity.isBlocker ? min(escalation ?? NookSoundRepeat.longest, NookSoundRepeat.longest) : NookSoundRepeat.longest)))
        }
    }

    /// `program` was handed to the output for the card `id` with `verdict`: a repeat is watched
    /// from now, and the card's entry says how many times it plays (`played, 3 times`).
    func started(_ program: SoundProgram, for id: NookActivityID, activity: NookActivity, verdict: RoomSoundRules.Verdict) {
        guard case .repeated = program, let asked = activity.soundRepeat else {
            playing.withLock { $0 = nil }
            if activity.soundRepeat == .untilEngaged { note(id, "\(verdict), once (someone was engaged already)") }
            return
        }
        let started = Playing(id: id, name: program.name, untilEngaged: asked == .untilEngaged, note: "\(verdict), \(asked)")
        playing.withLock { $0 = started }
        note(id, started.note)
        watchRoom(while: id)
    }

    /// A newer sound (a card's, or one with no card, B4) cuts off the one playing: no card's end
    /// stops it.
    func forget() { playing.withLock { $0 = nil } }

    /// Looks at the room every ``roomCheck`` while the repeat of `id` plays (a schedule's quiet
    /// hours may begin under it), and only then: a silent board is never woken for it.
    private func watchRoom(while id: NookActivityID) {
        guard let room = room.withLock({ $0 }) else { return }
        let task = Task { [self, clock] in
            repeat {
                do { try await clock.sleep(until: clock.now + Self.roomCheck) } catch { return }
                guard playing.withLock({ $0?.id == id }) else { return }
                await room.changed.call()
            } while room.output.status.state == .playing
        }
        roomWatch.withLock { $0?.cancel(); $0 = task }
    }

    /// Watches the queues' cards and the engagement for what ends a repeat, on `output`;
    /// `roomChanged` is the sound service's check that cuts off a sound the room now silences.
    func start(queues: [NookActivityQueue], output: any SoundOutput, roomChanged: @escaping @Sendable () async -> Void) {
        // The sound still playing is cut off; false when it had ended already.
        let cut: Cut = {
            guard output.status.state == .playing else { return false }
            output.stop()
            return true
        }
        let relays = queues.map { queue in
            let events = queue.events(where: Self.ends)
            return Task { [self] in
                for await event in events { self.observe(event, cut: cut) }
            }
        }
        let observation = engagement?.observe { [self] engaged in
            if engaged { self.engaged(cut: cut) }
        }
        room.withLock { $0 = (output, KeptClosure(roomChanged)) }
        stops.add { [room, roomWatch] in
            relays.forEach { $0.cancel() }
            observation?.cancel()
            room.withLock { $0 = nil }
            roomWatch.withLock { $0?.cancel() }
        }
    }

    func stop() async { await stops.run() }

    @Sendable static func ends(_ event: NookActivityEvent) -> Bool {
        switch event.kind {
        case .animateOut, .hidden, .requeued: true
        default: false
        }
    }

    /// Cuts off the sound still playing: false when it had ended.
    typealias Cut = @Sendable () -> Bool

    /// A card's end (or its leaving the glass) ends its repeat as its `soundRepeat` says. A
    /// dismissed card leaves the glass before it ends: a repeat stopped as it left is then said
    /// stopped by the dismissal, which is what stopped it.
    func observe(_ event: NookActivityEvent, cut: Cut) {
        switch event.kind {
        case .hidden(.dismissed):
            if let left = leftGlass.withLock({ left in defer { left = nil }; return left?.id == event.id ? left : nil }) {
                note(left.id, "\(left.note), stopped (dismissed)")
            }
            stop(where: { $0.id == event.id }, why: "dismissed", cut: cut)
        case .animateOut, .hidden, .requeued: stop(where: { $0.id == event.id && $0.untilEngaged }, why: Self.leftGlassWhy, cut: cut)
        default: break
        }
    }

    /// Someone engaged: a repeat until engaged has done its work.
    func engaged(cut: Cut) { stop(where: { $0.untilEngaged }, why: "engaged", cut: cut) }

    /// Stops the repeat playing if `matches` says it is the one; its entry and the log say why.
    private func stop(where matches: (Playing) -> Bool, why: String, cut: Cut) {
        let ended = playing.withLock { current -> Playing? in
            guard let playing = current, matches(playing) else { return nil }
            current = nil
            return playing
        }
        guard let ended, cut() else { return }
        leftGlass.withLock { $0 = why == Self.leftGlassWhy ? ended : nil }
        note(ended.id, "\(ended.note), stopped (\(why))")
        logger.info("sound: \(ended.name) for \(ended.id) stopped repeating (\(why))")
    }
}

extension Escalator.Settings {
    /// From a blocker's showing to its last step (Z4): when its escalation ends; nil without steps.
    var length: Duration? { steps.isEmpty ? nil : after + every * (steps.count - 1) }
}
