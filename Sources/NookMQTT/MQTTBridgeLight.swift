import NookProtocol

/// Home Assistant's light for the display (M1): `turn_on` switches it on (at a brightness, when
/// one is given), `turn_off` off, through nookd's `display`. What was done is logged; what nookd
/// says is not so (a brightness without a `[brightness]` table, a glass dark while nobody is
/// there) is said on the error topic with code `notDone`; what was not read as sent is a warning.
extension MQTTBridge {
    func displayLight(_ message: MQTTMessage) -> [Delivery] {
        // A retained OFF would switch the display off at every new subscription: refused.
        guard takesRequest(message) else { return [] }
        do throws(ProtocolError) {
            let (setting, remarks) = try HomeAssistantLight.read(message.payload)
            guard let answer = ask(.display(setting), as: DisplayAnswer.self, for: message, else: "the display was not switched",
                                   source: "light") else { return [] }
            logger.info("\(message.topic): \(answer.warnings.isEmpty ? "done (the board is as asked)" : "done in part"): \(answer.summary)")
            if !answer.warnings.isEmpty { notDone(answer.warnings, message) }
            warn(remarks, topic: message.topic, payload: message.payload)
        } catch {
            report(Rejection(topic: message.topic, error), payload: message.payload)
        }
        return []
    }
}
