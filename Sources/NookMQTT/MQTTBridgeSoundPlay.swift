import NookActivities
import NookProtocol

extension MQTTBridge {
    /// `request` played by nookd for `message` (the siren's and AWTRIX's sound topics, B4), once.
    /// A QoS 1 message's play carries an id derived as an activity's is (the client id, the packet
    /// id, the topic and the payload), so the broker's redelivery to a bridge that restarted
    /// before it acknowledged the first plays nothing again, as a redelivered card is not shown
    /// twice. Nil once a refusal was reported, and for a redelivery that nookd carried out before
    /// (logged).
    func playOnce(_ request: SoundRequest, for message: MQTTMessage, refusal: (ProtocolError) -> ProtocolError = { $0 },
                  source: String) -> SoundPlayAnswer? {
        var request = request
        if message.qos > 0 {
            request.playID = Self.derivedID(clientID: config.effectiveClientID, message: message, digest: Self.digest(message))
        }
        logger.debug("\(message.topic): asking nookd to play \(SaidText.shown(request.sound, scalars: 60))\(request.playID.map { " (playID \($0))" } ?? "")")
        guard let answer = ask(.soundPlay(request), as: SoundPlayAnswer.self, for: message, else: "the sound was not played",
                               refusal: refusal, source: source) else { return nil }
        guard answer.again else { return answer }
        if message.redelivered == true {
            logger.notice("\(message.topic): message \(message.messageID) sent again after a lost acknowledgement was carried out before; acknowledged, not played again")
            return nil
        }
        // A first delivery whose derived id an earlier message had (the broker uses a packet id
        // again once it is acknowledged, and the payload was the same): played, without it.
        request.playID = nil
        return ask(.soundPlay(request), as: SoundPlayAnswer.self, for: message, else: "the sound was not played", refusal: refusal, source: source)
    }
}
