import NookProtocol

/// Home Assistant's siren (B4): `turn_on` plays a sound through nookd as the room allows,
/// `turn_off` stops the one playing. What was done is logged; a sound not played (no output,
/// silenced by quiet hours or an empty room) is said on the error topic with code `notDone`
/// and why, as for AWTRIX's `sound` topic; what was not done as sent is a warning there.
extension MQTTBridge {
    func siren(_ message: MQTTMessage) -> [Delivery] {
        // A retained ON would sound at every new subscription: refused, as a retained activity is.
        guard takesRequest(message) else { return [] }
        do throws(ProtocolError) {
            let (command, remarks) = try HomeAssistantSiren.read(message.payload)
            switch command {
            case .play(let request):
                guard let answer = playOnce(request, for: message, refusal: { $0.field == "sound" ? ProtocolError($0.code, field: "tone", $0.message) : $0 },
                                            source: "siren") else { return [] }
                guard answer.played else {
                    notDone(remarks + ["not played: \(answer.outcome)"], message)
                    return []
                }
                logger.info("\(message.topic): done (the board is as asked): \(answer.summary)")
                warn(remarks + (answer.outcome == "played" ? [] : [answer.outcome]) + answer.warnings, topic: message.topic, payload: message.payload)
            case .stop:
                guard let answer = ask(.soundStop, as: SoundStopAnswer.self, for: message, else: "the sound was not stopped",
                                       source: "siren") else { return [] }
                logger.info("\(message.topic): done (the board is as asked): \(answer.summary)")
                warn(remarks, topic: message.topic, payload: message.payload)
            }
        } catch {
            report(Rejection(topic: message.topic, error), payload: message.payload)
        }
        return []
    }
}
