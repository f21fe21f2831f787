import NookActivities
import NookRender

extension Daemon {
    /// Puts the recall queue (U5) on the glass beside the modules' queues and has it follow
    /// them; returns how to stop it.
    func startRecall() async -> @Sendable () -> Void {
        await recall.bind(to: arbiter)
        let events = recall.queue.events(where: NookScreen.draws)
        let feeder = Task { [screen, recall] in await screen.run(events, reportingTo: recall.queue) }
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
