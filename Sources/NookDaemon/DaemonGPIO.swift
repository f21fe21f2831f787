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
                dismiss: { queues.forEach { $0.requestDismissCurrent() } },
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
    func gpioStatusJSON() -> JSONValue {
        guard let inputs = state.withLock({ $0.gpio }) else { return .null }
        let library = GPIOInputs.library
        let lines = inputs.states.map { line in
            JSONValue.object([
                ("name", .string(line.name)), ("role", .string(line.role.rawValue)), ("location", .string(line.location)),
                ("active", line.isActive.map(JSONValue.bool) ?? .null),
                ("changes", .number(Double(line.changes))),
                ("lastEdgeToWakeMs", line.lastEdgeToWake.map { .number(($0 / .microseconds(1)).rounded() / 1000) } ?? .null),
                ("problem", line.problem.map(JSONValue.string) ?? .null),
            ])
        }
        return .object([("library", .string(library.version)), ("api", .number(Double(library.api))), ("lines", .array(lines))])
    }
}
