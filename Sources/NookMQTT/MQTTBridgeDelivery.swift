import NookActivities
import NookLogging
import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// A batch of messages on its way to nookd (E5): each topic's row turns a message into
/// requests, all are sent pipelined, and every answer is read before a PUBACK is written.
extension MQTTBridge {
    /// A message on its way to nookd.
    struct Delivery {
        var message: MQTTMessage
        var operation: NookOperation
        /// Of the topic and payload: with the packet id, what a redelivery has in common with
        /// the first delivery.
        var digest: UInt64
        /// The activity's id is the one derived from the packet id (it had none of its own).
        var derivedID: Bool
        /// What the translation left out (an icon name that is none of the board's, a field it
        /// does not draw): said on the error topic once nookd took the message, with nookd's own
        /// warnings.
        var notes: [String] = []
    }

    /// Passes the batch to nookd, pipelined, and waits for every answer before the loop may
    /// write the PUBACKs libmosquitto queued for them.
    func processBatch() {
        guard !batch.isEmpty else { return }
        let messages = batch
        batch = []
        var deliveries: [Delivery] = []
        for message in messages {
            guard let (row, kind) = topics.route(message.topic), let handler = row.handler else {
                // A subscription's `+` takes an empty level (`AWTRIX/custom/`), and a resumed
                // session may keep an older prefix's: said, never dropped without a word.
                report(Rejection(topic: message.topic, code: "notFound", field: nil,
                                 "the bridge takes nothing on \(message.topic)\(message.topic.hasSuffix("/") ? ": an app's topic ends in its name (\(topics.awtrixPrefix)/custom/NAME)" : "")"),
                       payload: message.payload)
                continue
            }
            let digest = Self.digest(message)
            if message.qos > 0 {
                let slot = taken[message.messageID & (taken.count - 1)]
                if message.redelivered == true, slot.messageID == message.messageID, slot.digest == digest {
                    logger.notice("\(message.topic): message \(message.messageID) sent again after a lost acknowledgement was taken before; acknowledged")
                    continue
                }
                // A first delivery: the broker uses this packet id for a new message now.
                if message.redelivered != true, slot.messageID == message.messageID {
                    taken[message.messageID & (taken.count - 1)] = (0, 0)
                }
            }
            for delivery in handler(self, message, kind, digest) {
                // A row asks nookd only for what it declares: a handler that strays is a fault here.
                guard row.asks.contains(delivery.operation.name) else {
                    report(Rejection(topic: message.topic, code: "internalError", field: nil,
                                     "\(row.pattern) does not ask for \(delivery.operation.name.rawValue); not sent"), payload: message.payload)
                    continue
                }
                deliveries.append(delivery)
            }
        }
        while !deliveries.isEmpty {
            guard let again = deliver(deliveries) else { return }
            deliveries = again
        }
    }

    /// An activity, a command or an AWTRIX notification: the request ``InboundMessage`` reads
    /// from it, or its refusal reported.
    func cardDeliveries(_ message: MQTTMessage, kind: Topics.Inbound, digest: UInt64) -> [Delivery] {
        let makesCard = kind == .activity || kind == .notify
        // Derived from the session's packet id, so a redelivery (same id, same payload,
        // DUP set) names the same activity, and nookd, which refuses an id it holds,
        // does not show it twice.
        let derived = message.qos > 0 && makesCard ? Self.derivedID(clientID: config.effectiveClientID, message: message, digest: digest) : nil
        var notes: [String] = []
        let decoded = InboundMessage.decode(kind, topic: message.topic, payload: message.payload, retained: message.retained, module: config.module,
                                            retainFlagKept: config.protocolVersion == .v5, activityID: derived, notes: &notes)
        switch decoded {
        case .failure(let rejection):
            report(rejection, payload: message.payload)
        case .success(nil):
            logger.debug("\(message.topic): an empty retained message (clearing what was retained); nothing to do")
        case .success(var operation?):
            operation = keyedIfHeld(operation, kind: kind)
            var isDerived = false
            if case .enqueue(let activity, _, _, _) = operation, let derived { isDerived = activity.id == derived }
            return [Delivery(message: message, operation: operation, digest: digest, derivedID: isDerived, notes: notes)]
        }
        return []
    }

    /// Sends `deliveries` to nookd in one write and reads every answer. Returns those to send
    /// again (a derived id that named an earlier message), or nil when the batch was abandoned.
    func deliver(_ deliveries: [Delivery]) -> [Delivery]? {
        var sent: [(id: Double, delivery: Delivery)] = []
        // One write for the whole batch: nookd reads it as one pipelined burst.
        var lines: [UInt8] = []
        for delivery in deliveries {
            nextRequestID += 1
            // An app's owner is the bridge under its stated name (U3): a broker's clients may
            // change the apps they set, never another sender's.
            let sender = Self.ownedAppOperations.contains(delivery.operation.name) ? Self.appSender : nil
            let line = Request(id: .number(nextRequestID), operation: delivery.operation, sender: sender).encoded().utf8
            // The payload limit is not the line limit: a 64 KiB payload escaped into a
            // request can be longer than nookd reads, and nookd's refusal of it carries no
            // id, which would leave the whole batch unacknowledged and sent again forever.
            guard line.count <= NookProtocol.maximumLineBytes else {
                let array = if case .appSetAll(let apps) = delivery.operation {
                    " (these \(apps.count) apps are set in one step: send fewer apps or shorter texts)"
                } else { "" }
                report(Rejection(topic: delivery.message.topic, ProtocolError(.lineTooLong, field: "payload",
                    "the request made from this payload is \(line.count) bytes; nookd reads at most \(NookProtocol.maximumLineBytes)" + array)),
                       payload: delivery.message.payload)
                continue
            }
            lines += line
            lines.append(0x0A)
            sent.append((nextRequestID, delivery))
        }
        guard !sent.isEmpty else { return [] }
        guard let requests else { abandonBatch("nookd is not connected"); return nil }
        do throws(ClientError) { try requests.sendRaw(lines) } catch {
            abandonBatch("\(error)")
            return nil
        }
        logger.debug("passed \(sent.count) message(s) to nookd; waiting for its answers before acknowledging")
        // Matched by request id, not by position: nothing here assumes nookd answers in order.
        var waiting: [RequestID: Delivery] = [:]
        waiting.reserveCapacity(sent.count)
        for entry in sent { waiting[.number(entry.id)] = entry.delivery }
        var again: [Delivery] = []
        while !waiting.isEmpty {
            let response: ResponseLine
            let line: [UInt8]
            do throws(ClientError) {
                guard let read = try requests.readLine() else { abandonBatch("nookd closed the connection"); return nil }
                line = read
                // An accepted request needs only its id read (parsing every answer
                // whole was a tenth of the bridge's time); refusals are parsed for their reason.
                if let id = ResponseLine.acceptedNumberID(in: line), !Self.mayWarn(line) {
                    response = .success(id: .number(id), result: .null)
                } else {
                    do { response = try ResponseLine.decode(line) } catch { throw .daemon(error) }
                }
            } catch {
                abandonBatch("\(error)")
                return nil
            }
            switch response {
            case .success(let id?, let result):
                guard let entry = waiting.removeValue(forKey: id) else { continue }
                recordTaken(entry)
                sayNotTaken(entry, entry.notes + Self.warnings(in: result, of: entry.operation))
                if case .enqueue = entry.operation {} else { stateDirty = true }
                noteCommandDone(entry, answer: line)
            case .failure(let id?, let error):
                guard let entry = waiting.removeValue(forKey: id) else { continue }
                if case .dismiss = entry.operation, error.code == .notFound, topics.kind(of: entry.message.topic) == .notifyDismiss {
                    // It ended between nookd's status and the dismissal: what was asked is done.
                    recordTaken(entry)
                    logger.info("\(entry.message.topic): the held notification had already gone")
                    continue
                }
                if case .appRemove(let name) = entry.operation, error.code == .notFound {
                    // Removing what is not there (a retained message cleared twice) is done.
                    recordTaken(entry)
                    logger.debug("\(entry.message.topic): no app \(name) to remove")
                    continue
                }
                if Self.isRedelivery(error, of: entry.operation) {
                    if entry.derivedID, entry.message.redelivered != true, case .enqueue(var activity, let module, let wait, let inPlace) = entry.operation {
                        // Not sent before, yet its derived id is held: an earlier message had
                        // this packet id and the same payload. This one is new.
                        activity.id = NookActivityID()
                        if activity.coalescingKey?.hasPrefix(Self.heldKeyPrefix(clientID: config.effectiveClientID)) == true {
                            activity.coalescingKey = Self.heldKey(clientID: config.effectiveClientID, id: activity.id)
                        }
                        again.append(Delivery(message: entry.message, operation: .enqueue(activity, module: module, wait: wait, inPlace: inPlace),
                                              digest: entry.digest, derivedID: false))
                        continue
                    }
                    recordTaken(entry)
                    logger.notice("\(entry.message.topic): activity already taken (a message sent again after a lost acknowledgement); acknowledged")
                } else {
                    report(Rejection(topic: entry.message.topic, error), payload: entry.message.payload)
                }
            case .failure(nil, let error):
                // nookd could not tell which request this answers (a line it could not read):
                // nothing can be acknowledged on that footing.
                abandonBatch("nookd answered a request it could not identify: \(error)")
                return nil
            case .success(nil, _), .event:
                continue
            }
        }
        return again
    }

    /// A command's outcome in the log, as nookd answered it: a dismiss that met a card already
    /// leaving on its own ends nothing more, and says so (`alreadyEnding`). Commands are few;
    /// activities and apps, which come in bursts, are not logged one by one.
    func noteCommandDone(_ delivery: Delivery, answer line: [UInt8]) {
        let name = delivery.operation.name
        guard name != .enqueue, !Self.ownedAppOperations.contains(name) else { return }
        let result = (try? ResponseLine.decode(line)).flatMap { response -> String? in
            if case .success(_, let result) = response { result.serialized } else { nil }
        } ?? "done"
        logger.info("\(delivery.message.topic): \(delivery.operation.name.rawValue): \(result)")
    }

    func recordTaken(_ delivery: Delivery) {
        guard delivery.message.qos > 0 else { return }
        taken[delivery.message.messageID & (taken.count - 1)] = (delivery.message.messageID, delivery.digest)
    }

    /// FNV-1a of the topic and the payload.
    static func digest(_ message: MQTTMessage) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in message.topic.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        hash = (hash ^ 0) &* 0x100_0000_01b3
        for byte in message.payload { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    /// The activity id of a message without one: the same for the same client id, packet id,
    /// topic and payload, i.e. for the broker's redelivery of a message to this session.
    static func derivedID(clientID: String, message: MQTTMessage, digest: UInt64) -> NookActivityID {
        var seed = digest
        for byte in clientID.utf8 { seed = (seed ^ UInt64(byte)) &* 0x100_0000_01b3 }
        seed = (seed ^ UInt64(message.messageID)) &* 0x100_0000_01b3
        var generator = SplitMix(state: seed)
        return NookActivityID(using: &generator)
    }

    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9e37_79b9_7f4a_7c15
            var z = state
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
    }

    /// nookd refuses an id it already holds; for a message the broker sent again, that means
    /// the first delivery was taken.
    static func isRedelivery(_ error: ProtocolError, of operation: NookOperation) -> Bool {
        guard case .enqueue = operation else { return false }
        return error.code == .invalid && error.field == "activity.id" && error.message.contains("already")
    }

    func abandonBatch(_ why: String) {
        logger.warning("nookd did not take a batch of messages (\(why)); leaving the broker without acknowledging them, so it sends them again once nookd is back")
        (requests, events) = (nil, nil)
        nextNookdAttempt = MonotonicClock.seconds + nookdBackoff.next()
        abandonBroker()
    }

    /// Whether an accepted answer may carry `warnings`: then it is read whole, not by its id alone.
    static func mayWarn(_ line: [UInt8]) -> Bool {
        let member = Array("\"warnings\"".utf8)
        guard line.count >= member.count else { return false }
        return (0...(line.count - member.count)).contains { line[$0..<$0 + member.count].elementsEqual(member) }
    }

    /// nookd's warnings in an accepted answer (an icon it does not know, characters its LED font
    /// lacks): an array's are each named by their app.
    static func warnings(in result: JSONValue, of operation: NookOperation) -> [String] {
        guard result != .null else { return [] }
        if case .appSetAll = operation { return (try? AppSetAllAnswer(json: result))?.warnings ?? [] }
        return result["warnings"]?.items.compactMap(\.text) ?? []
    }

    /// What of a message nookd took the glass will not show as sent: logged and published on
    /// the error topic as a refusal is, with the code `warning` (the message was taken).
    func sayNotTaken(_ delivery: Delivery, _ warnings: [String]) {
        warn(warnings, topic: delivery.message.topic, payload: delivery.message.payload)
    }

    /// Each of `warnings` about a message taken on `topic`: logged, and on the error topic.
    func warn(_ warnings: [String], topic: String, payload: [UInt8]) {
        for warning in warnings {
            let said = Rejection(topic: topic, code: "warning", field: nil, warning)
            logger.notice("took a message with a warning: \(said)")
            publishOnErrorTopic(said, payload: payload)
        }
    }

    func report(_ rejection: Rejection, payload: [UInt8]) {
        logger.notice("refused a message: \(rejection)")
        publishOnErrorTopic(rejection, payload: payload)
    }

    /// What was refused or left out, on the error topic while the broker is there (E4).
    func publishOnErrorTopic(_ said: Rejection, payload: [UInt8]) {
        guard brokerReady else { return }
        do throws(MQTTError) {
            try connection.publish(topics.error, said.json(payload: payload).serializedBytes, qos: 1)
        } catch {
            logger.error("cannot publish to \(topics.error): \(error)")
        }
    }
}
