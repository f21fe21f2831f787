import NookLogging
import NookActivities
import NookProtocol

extension Daemon {
    /// The buttons simulated over the socket.
    static let pressHandlers: [OperationHandler] = [
        OperationHandler(\.device.press) { daemon, request, reply in
            try await daemon.pressRequest(request.input, holdMs: request.holdMs, reply)
        },
    ]

    /// `press` (`debug.press_inputs`, checked by the dispatch): acts as the buttons.
    func pressRequest(_ input: NookInputName, holdMs: Int?, _ reply: RequestReply) async throws(ProtocolError) {
        // As the button (``InputRules``); the toggle is the socket's own, a second open
        // button's (I3: hover OR open). The hold is taken as said, not waited out: the
        // toggle a long press takes back is never made.
        var taken = false
        switch input {
        case .open:
            let outcome = inputRules.open(held: holdMs.map { .milliseconds($0) })
            taken = outcome.taken
            if outcome == .toggle { _ = pressToggle.toggle() }
        case .dismiss:
            inputRules.dismiss(because: "dismiss pressed")
        }
        logger.info("press: \(input.rawValue)\(holdMs.map { " held \($0) ms" } ?? "") (debug.press_inputs)")
        inputs.publish(InputMessage(input: input, source: "press", taken: taken))
        reply.answer(PressAnswer(pressed: input))
    }
}
