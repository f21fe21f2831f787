import NookActivities
import NookProtocol

extension Daemon {
    /// The indicator lights (M1).
    static let indicatorHandlers: [OperationHandler] = [
        OperationHandler(\.device.indicator) { daemon, setting, reply in
            await daemon.indicatorRequest(setting, reply)
        },
    ]

    /// `indicator` (a whole-device change: the dispatch checked the scope): the light is set and
    /// drawn before the answer, and a watcher hears that `status` changed.
    func indicatorRequest(_ setting: NookIndicator, _ reply: RequestReply) async {
        let answer = await parts.display.indicators.set(setting)
        statusChanges.notify(.indicators)
        reply.answer(answer)
    }
}
