import NookActivities
import NookLogging
import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// The bridge's two connections to nookd: requests, and the `watch` stream whose events go out on
/// the event topic and make the state topic read again.
extension MQTTBridge {
    func connectNookd() {
        do throws(ClientError) {
            let events = try NookClient.watching(path: options.socketPath, readTimeout: .seconds(10))
            let requests = try NookClient(path: options.socketPath)
            requests.readTimeout = .seconds(30)
            (self.events, self.requests) = (events, requests)
            nookdBackoff.reset()
            nookdWarned = false
            stateDirty = true
            // Another nookd, perhaps: its count of sounds is its own.
            soundPlaysRead = nil
            logger.info("connected to nookd at \(options.socketPath)")
        } catch {
            if !nookdWarned { logger.warning("nookd is not reachable (\(error)); the broker waits until it is (trying again with backoff)") }
            nookdWarned = true
            nextNookdAttempt = MonotonicClock.seconds + nookdBackoff.next()
        }
    }

    /// nookd went away: leave the broker too, so what is published meanwhile waits there
    /// (and the will tells subscribers the board is offline).
    func nookdLost(_ why: String) {
        logger.warning("lost nookd (\(why)); leaving the broker until nookd is back")
        (requests, events) = (nil, nil)
        nextNookdAttempt = MonotonicClock.seconds + nookdBackoff.next()
        abandonBroker()
    }

    func abandonBroker() {
        discarding = true
        abandoning = true
        connection.abandon()
        if brokerAttempt != nil, connection.descriptor < 0 { brokerConnectionEnded() }
        abandoning = false
        discarding = false
        batch = []
        brokerReady = false
    }

    func readEvents() {
        guard let events else { return }
        repeat {
            let line: [UInt8]?
            do throws(ClientError) { line = try events.readLine() } catch { nookdLost("\(error)"); return }
            guard let line else { nookdLost("nookd closed the event stream"); return }
            // Passed on as nookd wrote it, not parsed and written again (that was a
            // third of the bridge's CPU time in a burst); any other line is parsed.
            if let event = ResponseLine.eventObject(in: line, prefix: Self.watchEventPrefix) {
                stateDirty = true
                if brokerReady { try? connection.publish(topics.event, slice: event, qos: 0) }
                continue
            }
            guard case .event(_, let json)? = try? ResponseLine.decode(line) else { continue }
            stateDirty = true
            if brokerReady { _ = try? connection.publish(topics.event, json.serializedBytes, qos: 0) }
        } while events.hasBufferedLine
    }


    func refreshState() {
        guard brokerReady, let requests else { return }
        let now = MonotonicClock.seconds
        let due = stateDirty ? now >= lastStateRefresh + Self.stateCoalescing : statePollInterval.map { now >= lastStateRefresh + $0 } ?? false
        guard due else { return }
        lastStateRefresh = now
        let status: StatusAnswer
        do throws(ClientError) {
            (status, _) = try requests.request(Request(id: .string("state"), operation: .status), as: StatusAnswer.self)
        } catch {
            if case .daemon = error { logger.error("nookd's status cannot be read: \(error)") } else { nookdLost("\(error)") }
            return
        }
        stateDirty = false
        publishDiscovery(offering: Discovery.Offers(status: status))
        publishAWTRIXStats(status)
        let board = BoardState(status: status, module: config.module)
        let plays = status.sound?.played
        let states = board.afterUnseenSound(plays: plays, playsBefore: soundPlaysRead, publishedSound: publishedState?["sound"]?.text)
        soundPlaysRead = plays
        for state in states.map(\.json) where state != publishedState {
            do throws(MQTTError) {
                try connection.publish(topics.state, state.serializedBytes, qos: 1, retain: true)
                publishedState = state
            } catch {
                logger.error("cannot publish \(topics.state): \(error)")
            }
        }
        if !trimmed {
            // Start-up is over (config, TLS, the broker session, the first state): its code
            // need not stay resident (`mqtt_bridge_idle_rss_mib`).
            trimmed = true
            IdleTrim.dropPages()
        }
    }

    /// Home Assistant discovery (E7), at the session's first status and again when what the board
    /// offers changes (a sound output found or gone, `[brightness]` at a restart of nookd): each
    /// entity of the board, and an empty retained config for one it no longer has, which Home
    /// Assistant takes as its removal.
    func publishDiscovery(offering offers: Discovery.Offers) {
        guard config.discovery, offers != publishedOffers else { return }
        let announced = discovery.entities(offering: offers)
        let kept = Set(announced.map(discovery.topic))
        do throws(MQTTError) {
            for entity in announced {
                try connection.publish(discovery.topic(entity), entity.config.serializedBytes, qos: 1, retain: true)
            }
            for entity in discovery.entities where !kept.contains(discovery.topic(entity)) {
                try connection.publish(discovery.topic(entity), [], qos: 1, retain: true)
            }
            publishedOffers = offers
        } catch {
            logger.error("cannot publish Home Assistant discovery: \(error)")
        }
    }
}
