import NookLogging
import NookActivities

/// Z4: a blocker left on the glass unacknowledged escalates: after `after`, and again every
/// `every`, the next of `steps` — `brighter` (the backlight to full), `pulse` (the brightness
/// swinging between full and a fifth until acknowledged), then `hook` (the
/// `on_escalate` command, ``EscalationHook``). Dismissing it (input or `nookctl dismiss`) ends
/// the blocker and so its escalation. While quiet hours are on only `.high` blockers escalate.
actor Escalator {
    enum Step: String, Sendable, CaseIterable { case brighter, pulse, hook }

    struct Settings: Hashable, Sendable {
        var after: Duration = .seconds(Service.Escalation.after.defaultValue)
        var every: Duration = .seconds(Service.Escalation.every.defaultValue)
        var steps: [Step] = []
        var command: [String] = []
    }

    private let settings: Settings
    private let clock: any NookClock
    private let quiet: NookQuietHours
    private let brighter: @Sendable () async -> Void
    private let pulse: @Sendable () async -> Void
    private let logger: Logger
    private var running: [NookActivityID: Task<Void, Never>] = [:]
    /// Each escalating blocker as it is now: an update (U1) changes what a step sees.
    private var latest: [NookActivityID: NookActivity] = [:]
    /// The cards presented and not yet leaving: a timed one updated into a blocker there
    /// starts escalating from the update.
    private var onGlass: Set<NookActivityID> = []

    init(settings: Settings, clock: any NookClock, quiet: NookQuietHours, logger: Logger,
         brighter: @escaping @Sendable () async -> Void, pulse: @escaping @Sendable () async -> Void) {
        (self.settings, self.clock, self.quiet, self.logger, self.brighter, self.pulse) = (settings, clock, quiet, logger, brighter, pulse)
    }

    @Sendable static func matters(_ event: NookActivityEvent) -> Bool {
        switch event.kind {
        case .presented, .animateOut, .hidden, .requeued: true
        case .updated(let previous): event.activity.isBlocker || previous.isBlocker
        default: false
        }
    }

    func observe(_ event: NookActivityEvent) {
        switch event.kind {
        case .presented:
            onGlass.insert(event.id)
            if event.activity.isBlocker { start(event.activity) }
        case .updated where running[event.id] != nil:
            if event.activity.isBlocker {
                latest[event.id] = event.activity
            } else {
                // Turned timed: it ends on its own and waits for nobody's acknowledgement.
                stop(event.id)
            }
        case .updated where event.activity.isBlocker && onGlass.contains(event.id):
            start(event.activity)
        case .animateOut, .hidden, .requeued:
            onGlass.remove(event.id)
            stop(event.id)
        default:
            break
        }
    }

    /// Escalates `activity`, a blocker on the glass, from now on.
    private func start(_ activity: NookActivity) {
        running[activity.id]?.cancel()
        let id = activity.id
        latest[id] = activity
        running[id] = Task { [settings, clock] in
            var deadline = clock.now + settings.after
            for (index, step) in settings.steps.enumerated() {
                do { try await clock.sleep(until: deadline) } catch { return }
                await self.escalate(id, step: step, number: index + 1)
                deadline = deadline + settings.every
            }
        }
    }

    private func stop(_ id: NookActivityID) {
        running.removeValue(forKey: id)?.cancel()
        latest[id] = nil
    }

    private func escalate(_ id: NookActivityID, step: Step, number: Int) async {
        guard running[id] != nil, let activity = latest[id] else { return }
        if activity.priority < .high, quiet.isQuiet {
            logger.info("escalation: step \(number) (\(step.rawValue)) of \(activity.id) skipped, quiet hours")
            return
        }
        logger.notice("escalation: step \(number) (\(step.rawValue)) for \(activity.id), not acknowledged")
        switch step {
        case .brighter:
            await brighter()
        case .pulse:
            await pulse()
        case .hook:
            guard !settings.command.isEmpty else { return }
            if case .failure(let error) = EscalationHook.run(settings.command, activity: activity, step: number) {
                logger.warning("escalation: on_escalate could not start: \(error)")
            }
        }
    }
}
