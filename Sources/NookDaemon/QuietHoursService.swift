import NookActivities
import NookProtocol
import NookRender

extension Daemon {
    /// Z1: ends the pending activities whose priority is configured to be suppressed, each
    /// time quiet hours may have begun: at the start of every minute (schedule boundaries are
    /// whole minutes, and the wall clock may have been set), and at a `quiet until` duration's
    /// end. Claims below the minimum are held back by the arbiter's gate on their own; this only
    /// ends the ones that are not to wait. The minute's start is the clock tick's instant, so
    /// both are one wake (issue 19).
    func runQuietHours() async {
        while !Task.isCancelled {
            await endSuppressed()
            await brightness.withLock { $0 }?.setQuiet(quiet.isQuiet)
            let status = quiet.status()
            var wait = LocalTime.now().untilNextMinute
            if let until = status.until { wait = min(wait, .seconds(max(1, until.seconds - QuietConfig.systemLocalTime().seconds))) }
            do { try await clock.sleep(until: clock.now + wait) } catch { return }
        }
    }

    /// Ends, as `suppressed`, every pending activity that quiet hours now suppress.
    func endSuppressed() async {
        guard quiet.isQuiet, !quiet.policy.suppressed.isEmpty else { return }
        for module in modules {
            let ended = await queues[module]!.suppressPending { [quiet] in quiet.suppresses($0.priority) }
            if !ended.isEmpty { logger.info("quiet hours: ended \(ended.count) pending activities as suppressed", metadata: ["module": "\(module)"]) }
        }
    }

    /// `quiet on|off|until|status`.
    func quietRequest(_ setting: QuietSetting) async throws(ProtocolError) -> QuietAnswer {
        switch setting {
        case .on: quiet.set(.on)
        case .off: quiet.turnOff()
        case .status: break
        case .until(let text):
            guard let end = QuietConfig.until(text, now: QuietConfig.systemLocalTime()) else {
                throw ProtocolError(.invalid, field: "until", "must be HH:MM (24-hour) or a duration up to a week such as 45m or 2h, got '\(text)'")
            }
            quiet.set(.until(end))
        }
        if setting != .status {
            await brightness.withLock { $0 }?.setQuiet(quiet.isQuiet)
            logger.info("quiet hours: \(setting) → \(quiet.status().quiet ? "quiet" : "not quiet")")
            await endSuppressed()
        }
        let status = quiet.status()
        return QuietAnswer(quiet: status.quiet, source: status.source, until: status.until?.description, minimum: status.minimum)
    }
}
