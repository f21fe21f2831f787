import NookActivities
import NookProtocol

extension Daemon {
    /// `status`.
    static let statusHandlers: [OperationHandler] = [
        OperationHandler(\.reading.status) { daemon, _, reply in
            try await daemon.statusRequest(reply)
        },
    ]

    /// `status` (Q12): everything nookd reports about itself.
    func statusRequest(_ reply: RequestReply) async throws(ProtocolError) {
        let server = state.withLock { $0.server }
        var status = await status(connections: server?.openConnections ?? 0)
        status.bufferedBytes = server?.bufferedBytes
        reply.answer(status)
    }

    /// The core of `status` here, every other member from the service that owns it
    /// (``ReportsStatus``).
    func status(connections: Int) async -> StatusAnswer {
        let proximity = state.withLock { $0.proximity }
        let inputs = engagement.inputs.map { input in
            // The proximity sensor's last value, so thresholds can be chosen from what it reads.
            let reading = proximity.flatMap { $0.label == input.input || $0.presenceLabel == input.input ? $0.observation.reading : nil }
            return StatusAnswer.Input(input: input.input, role: input.role.rawValue, active: input.isActive, problem: input.problem,
                                      reading: reading.map { Double($0.nanos) / 1_000_000_000 })
        }
        let settings = await screen.currentSettings
        let frameInterval = await screen.medianSlideFrameInterval
        let display = StatusAnswer.Display(
            backend: backendName, mode: self.display.mode.description, rotation: settings.rotation.degrees,
            theme: settings.theme.appearance.rawValue, refreshHz: self.display.mode.refreshHz,
            slideFrameIntervalMs: frameInterval.map { ($0.nookSeconds * 10_000).rounded() / 10 },
            flips: self.display.pageFlips.map { StatusAnswer.Flips(requested: $0.requested, completed: $0.completed, timedOut: $0.timedOut) })
        var status = StatusAnswer(foreground: nil, display: display, home: settings.home.description, engaged: engagement.isEngaged,
                                  inputs: inputs, gpio: nil, modules: [], connections: connections)
        status.indicators = parts.display.indicators.lights
        for part in parts.reportingStatus { await part.report(into: &status) }
        return status
    }
}
