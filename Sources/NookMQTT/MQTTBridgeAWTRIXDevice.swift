import NookActivities
import NookProtocol

/// AWTRIX's device topics and stats (M1).
extension MQTTBridge {
    /// A message on one of AWTRIX's device topics (`power`, `settings`, `indicator1`, …): what
    /// is done or already holds is logged; what Nook does not carry out is logged and said on
    /// the error topic with what Nook does instead (code `notDone`); a body that cannot be read
    /// is refused as any other is.
    func deviceRequest(_ request: AWTRIXDevice.Request, _ message: MQTTMessage) -> [Delivery] {
        // The bound every topic keeps: a broker may pass hundreds of megabytes.
        guard message.payload.count <= InboundMessage.largestPayload else {
            report(InboundMessage.tooLong(message.payload, topic: message.topic), payload: message.payload)
            return []
        }
        // A retained switch or sound would be carried out again at every new subscription (the
        // display switched off at each reconnect): refused, as a retained activity is. An
        // indicator or the mood light is a state, which a retained message keeps, as AWTRIX does.
        if request.switchesDisplay || request.playsSound, !asksSomething(message) { return [] }
        if let number = request.indicatorNumber { return indicator(number, message) }
        if request == .moodlight { return moodLight(message) }
        if request.playsSound { return sound(request, message) }
        if request.switchesDisplay { return display(request, message) }
        do throws(ProtocolError) {
            outcome(try AWTRIXDevice.outcome(request, body: message.payload, status: nil), message)
        } catch {
            report(Rejection(topic: message.topic, error), payload: message.payload)
        }
        return []
    }

    /// What was done is logged, with what was read otherwise than sent as a warning on the error
    /// topic; what was not is said there (`notDone`).
    private func outcome(_ outcome: AWTRIXDevice.Outcome, _ message: MQTTMessage) {
        switch outcome {
        case .done(let remarks):
            logger.info("\(message.topic): done (the board is as asked)")
            // What was read otherwise than sent (a key given twice), as for an app's topic.
            warn(remarks, topic: message.topic, payload: message.payload)
        case .notDone(let lines): notDone(lines, message)
        }
    }

    /// `power`, `sleep`, `settings` (M1): read against the board's status, then switched or set
    /// by nookd's `display`, as nook-http does.
    private func display(_ request: AWTRIXDevice.Request, _ message: MQTTMessage) -> [Delivery] {
        guard let answer = ask(.status, as: StatusAnswer.self, for: message, else: "the display was not switched") else { return [] }
        do throws(ProtocolError) {
            let part = try AWTRIXDevice.display(request, body: message.payload, status: answer)
            var switched: DisplayAnswer?
            if !part.setting.reads {
                guard let done = ask(.display(part.setting), as: DisplayAnswer.self, for: message, else: "the display was not switched") else { return [] }
                switched = done
            }
            var volume: SoundVolumeAnswer?
            if let asked = part.volume {
                guard let done = ask(.soundVolume(asked), as: SoundVolumeAnswer.self, for: message, else: "the volume was not set") else { return [] }
                volume = done
            }
            outcome(AWTRIXDevice.outcome(of: switched, volume: volume, part), message)
        } catch {
            report(Rejection(topic: message.topic, error), payload: message.payload)
        }
        return []
    }

    /// `indicatorN`: the light set by nookd as AWTRIX reads the body, logged; what was read or
    /// drawn otherwise than sent is a warning on the error topic, as for an app's topic.
    private func indicator(_ number: Int, _ message: MQTTMessage) -> [Delivery] {
        do throws(ProtocolError) {
            let (setting, remarks) = try AWTRIXDevice.indicator(number, body: message.payload)
            guard let answer = ask(.indicator(setting), as: IndicatorAnswer.self, for: message, else: "the indicator was not set") else { return [] }
            logger.info("\(message.topic): done (the board is as asked): indicator\(number) \(answer.color ?? "off")")
            warn(remarks + answer.warnings, topic: message.topic, payload: message.payload)
        } catch {
            report(Rejection(topic: message.topic, error), payload: message.payload)
        }
        return []
    }

    /// `moodlight`: the whole glass lit by nookd's `home` as AWTRIX reads the body, or the light
    /// off, logged; what was read otherwise than sent is a warning on the error topic.
    private func moodLight(_ message: MQTTMessage) -> [Delivery] {
        do throws(ProtocolError) {
            let (setting, remarks) = try AWTRIXDevice.moodLight(body: message.payload)
            guard let answer = ask(.home(setting), as: HomeAnswer.self, for: message, else: "the mood light was not set") else { return [] }
            logger.info("\(message.topic): done (the board is as asked): home \(answer.home)")
            warn(remarks, topic: message.topic, payload: message.payload)
        } catch {
            report(Rejection(topic: message.topic, error), payload: message.payload)
        }
        return []
    }

    /// `sound`, `rtttl` (B4): played by nookd as AWTRIX reads the payload, logged; AWTRIX
    /// publishes nothing for them, so only what is said otherwise reaches the error topic: a
    /// level the room lowered it to (a warning), not played and why (`notDone`), a sound Nook
    /// cannot play or read (refused naming the field and the character at fault).
    private func sound(_ request: AWTRIXDevice.Request, _ message: MQTTMessage) -> [Delivery] {
        do throws(ProtocolError) {
            let (read, remarks) = try AWTRIXDevice.sound(request, body: message.payload)
            guard let asked = read else {
                notDone([AWTRIXDevice.nothingToPlay(request)], message)
                return []
            }
            guard let answer = playOnce(asked, for: message, refusal: { AWTRIXDevice.refusal($0, for: request) }, source: "awtrix") else { return [] }
            switch AWTRIXDevice.outcome(of: answer, for: request, remarks: remarks) {
            case .done(let remarks):
                logger.info("\(message.topic): done (the board is as asked): \(answer.summary)")
                warn(remarks, topic: message.topic, payload: message.payload)
            case .notDone(let lines): notDone(lines, message)
            }
        } catch {
            report(Rejection(topic: message.topic, error), payload: message.payload)
        }
        return []
    }

    /// nookd's answer to `operation`, asked for a message on a device topic; nil once its refusal
    /// (as `refusal` names it), or nookd's absence (`undone` says what was not done), is reported.
    func ask<Answer: NookAnswer>(_ operation: NookOperation, as _: Answer.Type, for message: MQTTMessage, else undone: String,
                                 refusal: (ProtocolError) -> ProtocolError = { $0 }, source: String = "awtrix") -> Answer? {
        guard let requests else {
            notDone(["nookd is not connected, \(undone)"], message)
            return nil
        }
        do throws(ClientError) {
            // Its id names the topics it came from in nookd's log (`siren-sound-play`).
            return try requests.request(Request(id: .string("\(source)-\(operation.name.rawValue)"), operation: operation), as: Answer.self).0
        } catch {
            if case .daemon(let refused) = error {
                report(Rejection(topic: message.topic, refusal(refused)), payload: message.payload)
            } else {
                nookdLost("\(error)")
            }
            return nil
        }
    }

    /// What was not done, on the error topic with the code `notDone`.
    func notDone(_ lines: [String], _ message: MQTTMessage) {
        report(Rejection(topic: message.topic, code: "notDone", field: nil, "not done: " + lines.joined(separator: "; ")), payload: message.payload)
    }

    /// AWTRIX's `stats` when they changed (the app on the glass, the brightness, presence:
    /// what nookd announces), `stats/loop` when the apps did, and `stats/effects` and
    /// `stats/transitions` once a session, as a clock publishes them at connect. A clock also
    /// publishes its stats every 10 s; the bridge wakes for none of its own (it follows
    /// nookd's events, and `mqtt.state_poll_ms` where set), so it retains them instead: a
    /// client that subscribes later has the last ones at once.
    func publishAWTRIXStats(_ status: StatusAnswer) {
        var due: [(String, JSONValue)] = []
        let stats = AWTRIXDevice.stats(status: status, host: .read())
        if AWTRIXDevice.changes(in: stats) != publishedAWTRIX["stats"] {
            due.append(("AWTRIX/stats", stats))
            publishedAWTRIX["stats"] = AWTRIXDevice.changes(in: stats)
        }
        if publishedAWTRIX["effects"] == nil {
            due.append(("AWTRIX/stats/effects", .array(AWTRIXDevice.effects.map(JSONValue.string))))
            due.append(("AWTRIX/stats/transitions", .array(AWTRIXDevice.transitions.map(JSONValue.string))))
            publishedAWTRIX["effects"] = .bool(true)
        }
        let apps = status.apps.map { JSONValue.array([.number(Double($0.count)), $0.showing.map(JSONValue.string) ?? .null]) } ?? .null
        if apps != publishedAWTRIX["apps"], let requests {
            do throws(ClientError) {
                let (list, _) = try requests.request(Request(id: .string("awtrix-loop"), operation: .appList), as: AppListAnswer.self)
                due.append(("AWTRIX/stats/loop", .object(list.apps.enumerated().map { ($1.app.name, .number(Double($0))) })))
                publishedAWTRIX["apps"] = apps
            } catch {
                logger.warning("nookd's app list cannot be read for AWTRIX's stats/loop: \(error)")
            }
        }
        for (pattern, value) in due {
            let topic = topics.awtrixPrefix + pattern.dropFirst("AWTRIX".count)
            do throws(MQTTError) {
                try connection.publish(topic, value.serializedBytes, qos: 0, retain: true)
            } catch {
                logger.error("cannot publish \(topic): \(error)")
            }
        }
    }
}
