import NookActivities
import NookLogging
import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// The bridge's session with the broker: connecting with backoff, subscribing to the inbound
/// rows of the topic table, reading batches, and what the broker says it dropped.
extension MQTTBridge {
    func connectBroker() {
        do throws(MQTTError) {
            attemptFailure = nil
            // Set first: libmosquitto may log the handshake's failure inside the connect call.
            brokerAttempt = (MonotonicClock.seconds, nil)
            logger.debug("connecting to \(config.host):\(config.effectivePort)")
            try connection.connect()
        } catch {
            brokerAttempt = nil
            let reason = "\(error)" + (attemptFailure.map { " (\($0))" } ?? "")
            attemptFailure = nil
            if brokerWarned { logger.debug("cannot reach the broker: \(reason)") } else {
                logger.warning("cannot reach the broker: \(reason); trying again with backoff (up to every 10 s)")
            }
            brokerWarned = true
            nextBrokerAttempt = MonotonicClock.seconds + brokerBackoff.next()
        }
    }

    /// The connection or the attempt ended, however it ended: the next attempt waits its step
    /// of the backoff.
    func brokerConnectionEnded() {
        guard let attempt = brokerAttempt else { return }
        brokerAttempt = nil
        brokerReady = false
        let now = MonotonicClock.seconds
        if let acceptedAt = attempt.acceptedAt, now - acceptedAt >= Self.stableConnection { brokerBackoff.reset() }
        let delay = brokerBackoff.next()
        nextBrokerAttempt = now + delay
        guard attempt.acceptedAt == nil, !abandoning else { return }
        // Never accepted: a TLS handshake that failed, a refusal (already logged with its
        // reason), or a broker that closed the connection before answering.
        let failure = attemptFailure ?? "the broker closed the connection before accepting it"
        attemptFailure = nil
        let line = "cannot connect to the broker at \(config.host):\(config.effectivePort): \(failure); trying again in \(delay) s (backoff up to every 10 s)"
        if failure == lastAttemptFailure { logger.debug("\(line)") } else { logger.error("\(line)") }
        lastAttemptFailure = failure
    }

    func connected(_ code: Int32, sessionPresent: Bool) {
        guard code == 0 else {
            let hint = connection.refusedCredentials(code) ? " (check the user name and password in the credentials file, and the broker's ACL)" : ""
            attemptFailure = "the broker refused the connection: \(connection.refusal(code))\(hint)"
            return
        }
        brokerReady = true
        brokerWarned = false
        lastAttemptFailure = nil
        brokerAttempt?.acceptedAt = MonotonicClock.seconds
        // A new session: the broker sends nothing of an earlier one again.
        if !sessionPresent { taken = taken.map { _ in (0, 0) } }
        logger.info("connected to the broker at \(config.host):\(config.effectivePort) (session \(sessionPresent ? "resumed" : "new"))")
        var subscribedAll = false
        do throws(MQTTError) {
            // Subscribing again on a resumed session is harmless and picks up a changed prefix.
            pendingSubscriptions = [:]
            grantedSubscriptions = []
            for (topic, row) in topics.inboundRows {
                let messageID = try connection.subscribe(topic, qos: 1, retainedEveryTime: row.retainedEveryTime)
                pendingSubscriptions[messageID] = topic
            }
            // Mosquitto's counter; a broker without it, or an ACL that hides it, costs nothing.
            // Its retained value is read on every connect: the drops while we were away (the
            // usual ones: the broker's queue for an offline client is full) show there.
            pendingSubscriptions[try connection.subscribe(Self.droppedTopic, qos: 0, retainedEveryTime: true)] = Self.droppedTopic
            subscribedAll = true
            try connection.publish(topics.availability, "online", qos: 1, retain: true)
        } catch {
            // No "subscribed to" line for a session whose subscriptions were not all asked for.
            if !subscribedAll { pendingSubscriptions = [:] }
            logger.error("cannot set up the broker session: \(error)")
        }
        publishedState = nil
        publishedAWTRIX = [:]
        // Discovery follows the first status of the session (what the board offers).
        publishedOffers = nil
        stateDirty = true
    }

    /// The broker's SUBACK. A refused subscription (its access control, most often) would leave
    /// a topic deaf with nothing said: it is logged and published on the error topic.
    func subscribed(_ messageID: Int32, granted: [Int32]) {
        guard let topic = pendingSubscriptions.removeValue(forKey: messageID) else { return }
        let code = granted.first ?? 0x80
        if code < 0x80 {
            grantedSubscriptions.append(topic)
            refusedSubscriptions.remove(topic)
        } else if topic != Self.droppedTopic {
            let reason = code == 0x87 ? "not authorised" : code == 0x80 ? "refused" : "reason code 0x" + String(code, radix: 16)
            let refusal = Rejection(topic: topic, code: "subscriptionRefused", field: nil,
                "the broker refused the subscription (\(reason)): nothing published on \(topic) reaches this board; let this client read it (the broker's ACL)")
            // A refusal that stands is said once, not at every reconnect.
            if refusedSubscriptions.insert(topic).inserted {
                logger.error("\(refusal)")
                do throws(MQTTError) {
                    try connection.publish(topics.error, refusal.json(payload: []).serializedBytes, qos: 1)
                } catch {
                    logger.error("cannot publish to \(topics.error): \(error)")
                }
            } else {
                logger.debug("\(refusal) (still)")
            }
        }
        // From here on the broker queues what arrives for us while we are away.
        if pendingSubscriptions.isEmpty {
            let listening = grantedSubscriptions.filter { $0 != Self.droppedTopic }
            if listening.isEmpty {
                // Said once while it stands, as each topic's refusal is.
                let deaf = "the broker refused every subscription: no topic reaches this board"
                if deafSaid { logger.debug("\(deaf) (still)") } else { logger.error("\(deaf)") }
                deafSaid = true
            } else {
                deafSaid = false
                logger.info("subscribed to \(listening.joined(separator: ", "))")
            }
        }
    }

    func disconnected(_ code: Int32) {
        // Scheduling the next attempt is brokerConnectionEnded's, which sees every way a
        // connection ends; a failed TLS handshake ends one without this callback.
        if code != 0, !discarding, brokerReady {
            logger.warning("lost the broker connection: \(MQTTError("mosquitto_loop", subject: "\(config.host):\(config.effectivePort)", code: code)); reconnecting")
        }
        brokerReady = false
    }

    func readBroker() {
        var rounds = 0
        while true {
            if connection.readPackets() != 0 { break }
            rounds += 1
            let fd = connection.descriptor
            guard fd >= 0, batch.count < Self.batchLimit, rounds < 4 * Self.batchLimit else { break }
            var entry = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            guard (try? pollDescriptors(&entry, timeoutMilliseconds: 0)) == 1 else { break }
        }
        if !batch.isEmpty { trim.activity(at: MonotonicClock.seconds) }
        processBatch()
    }

    /// A new value of the broker's dropped-message counter: a rise since the last one is logged
    /// and published on the error topic. The counter is the broker's, for all its clients; it
    /// says that messages were lost, not whose.
    func noteDropped(_ payload: [UInt8]) {
        guard let text = String(validating: payload, as: UTF8.self), let count = Int(text.trimmingWhitespace()) else { return }
        defer { droppedByBroker = count }
        logger.debug("the broker has dropped \(count) message(s) since it started")
        guard let before = droppedByBroker else { return }
        // A count below the last one is counted again from 0: the broker restarted since.
        let rise = count >= before ? count - before : count
        guard rise > 0 else { return }
        let rejection = Rejection(topic: Self.droppedTopic, code: "dropped", field: nil,
            "the broker dropped \(rise) message(s) (\(count) since it started), for this board or another of its clients: messages beyond its max_queued_messages per client (1000 by default) are dropped, also for a connected client; raise it (nook-mqtt(8), BROKER LIMITS)")
        logger.warning("\(rejection)")
        publishOnErrorTopic(rejection, payload: payload)
    }
}
