import NookInput
import NookProtocol

extension Daemon {
    /// Starts watching the configured GPIO lines (I1); nil when there are none. A line that
    /// cannot be had is a warning inside GPIOInputs (I4), never a reason not to run.
    func startGPIO() -> GPIOInputs? {
        let lines = state.withLock { $0.config.gpioLines }
        guard !lines.isEmpty else { return nil }
        let queues = Array(queues.values)
        let inputs: GPIOInputs
        do {
            inputs = try GPIOInputs(
                lines: lines, engagement: engagement,
                // Only one module's card is on the glass; the others have nothing to dismiss.
                // During a recall (U5) the card on the glass is a recalled one: dismiss ends it.
                dismiss: { [recall] in
                    guard !recall.end(because: "dismiss pressed") else { return }
                    queues.forEach { $0.requestDismissCurrent() }
                },
                pressed: { [presses = self.inputs] role, label, invoked in
                    switch role {
                    case .open: presses.publish(InputMessage(input: .open, source: label, taken: invoked))
                    case .dismiss: presses.publish(InputMessage(input: .dismiss, source: label))
                    case .hover, .presence: break
                    }
                },
                // The device's own input acts on any card, whoever sent it (U3). During a recall
                // (U5) a press moves on to the next entry instead.
                invoke: { [actionCards, recall, menuOnGlance] in
                    if recall.advance() { return true }
                    guard actionCards.anyOnGlass else {
                        // A menu on the glance takes the press as its Enter (E8): no toggle.
                        return menuOnGlance.withLock { $0?.isLive == true }
                    }
                    queues.forEach { $0.requestInvokeCurrent() }
                    return true
                },
                // U5: held on an idle display, open recalls the newest history entries.
                longPress: { [recall] in recall.start() },
                info: { [logger] in logger.info("\($0)") },
                warn: { [logger] in logger.warning("\($0)") })
        } catch {
            logger.warning("GPIO inputs unavailable: \(error); running without them")
            return nil
        }
        let library = GPIOInputs.library
        logger.info("watching \(lines.count) GPIO line(s) through libgpiod \(library.version)")
        inputs.start()
        state.withLock { $0.gpio = inputs }
        return inputs
    }

    /// `status`'s `gpio` member: the libgpiod in use and each line's live state.
    func gpioStatus() -> StatusAnswer.GPIO? {
        guard let inputs = state.withLock({ $0.gpio }) else { return nil }
        let library = GPIOInputs.library
        return StatusAnswer.GPIO(library: library.version, api: library.api, lines: inputs.states.map { line in
            StatusAnswer.GPIOLine(name: line.name, role: line.role.rawValue, location: line.location, active: line.isActive,
                                  changes: line.changes,
                                  lastEdgeToWakeMs: line.lastEdgeToWake.map { ($0 / .microseconds(1)).rounded() / 1000 },
                                  problem: line.problem)
        })
    }
}
