import NookActivities
import NookRender

extension Daemon {
    /// Puts the recall queue (U5) on the glass beside the modules' queues and has it follow
    /// them; returns how to stop it.
    /// Its display loop beats the systemd watchdog's `heartbeat` like the modules' loops (W1):
    /// a display that hangs while a recall card is drawn stops the pings.
    func startRecall(heartbeat: NookLoopHeartbeat?) async -> @Sendable () -> Void {
        await recall.bind(to: arbiter)
        let events = recall.queue.events(where: NookScreen.draws)
        let feeder = Task { [screen, recall] in await screen.run(events, reportingTo: recall.queue, heartbeat: heartbeat) }
        let followed = modules.map { module in queues[module]!.observe { [recall] in recall.observeModule($0) } }
        if let hold = recall.settings.hold {
            logger.info("recall: a press of open held \(hold) on an idle display shows the \(recall.settings.entries) newest history entries")
        }
        return {
            followed.forEach { $0.cancel() }
            feeder.cancel()
        }
    }
}
