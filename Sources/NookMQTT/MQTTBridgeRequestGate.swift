/// The rules every topic of requests keeps before its message is read: the size bound, and a
/// retained request refused (an empty retained message is the clearing of one).
extension MQTTBridge {
    /// Whether `message` is a request to read: within the bound every topic keeps (a broker may
    /// pass hundreds of megabytes), and asking for something (``asksSomething(_:)``). What is
    /// not is reported, or, for a clearing, logged.
    func takesRequest(_ message: MQTTMessage) -> Bool {
        guard message.payload.count <= InboundMessage.largestPayload else {
            report(InboundMessage.tooLong(message.payload, topic: message.topic), payload: message.payload)
            return false
        }
        return asksSomething(message)
    }

    /// Whether a message on a topic of requests asks for anything (``InboundMessage/asksSomething(topic:payload:retained:retainFlagKept:)``):
    /// the clearing of a retained one is logged, a retained request refused on the error topic.
    func asksSomething(_ message: MQTTMessage) -> Bool {
        do throws(Rejection) {
            let asks = try InboundMessage.asksSomething(topic: message.topic, payload: message.payload, retained: message.retained,
                                                        retainFlagKept: config.protocolVersion == .v5)
            if !asks { logger.debug("\(message.topic): an empty message (clearing a retained command); nothing to do") }
            return asks
        } catch {
            report(error, payload: message.payload)
            return false
        }
    }
}
