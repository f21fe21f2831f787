import NookActivities
import NookProtocol

/// AWTRIX 3's device routes (M1): `stats`, `effects`, `transitions`, `settings`, `screen`,
/// `notify/dismiss`, and the requests that change the device (``AWTRIXDevice/Request``). What
/// Nook carries out, or what already holds, is AWTRIX's `OK`; what it does not is a 501 whose
/// message names what was asked and what Nook does instead (an AWTRIX client raises it with
/// that text), never a 404.
enum AWTRIXDeviceRoutes {
    static func routes() -> [HTTPRoute] {
        [
            HTTPRoute("GET", "/api/stats", scope: .read, speaks: .awtrix) { exchange, _, nookd in
                withStatus(exchange, nookd) { exchange.respond(.json(AWTRIXDevice.stats(status: $0, host: .read()))) }
            },
            HTTPRoute("GET", "/api/effects", scope: .read, speaks: .awtrix) { exchange, _, _ in
                exchange.respond(.json(.array(AWTRIXDevice.effects.map(JSONValue.string))))
            },
            HTTPRoute("GET", "/api/transitions", scope: .read, speaks: .awtrix) { exchange, _, _ in
                exchange.respond(.json(.array(AWTRIXDevice.transitions.map(JSONValue.string))))
            },
            HTTPRoute("GET", "/api/settings", scope: .read, speaks: .awtrix) { exchange, _, nookd in
                withStatus(exchange, nookd) { exchange.respond(.json(AWTRIXSettings.current($0))) }
            },
            HTTPRoute("GET", "/api/screen", scope: .read, speaks: .awtrix) { exchange, _, nookd in
                answer(.sendscreen, exchange, nookd)
            },
            HTTPRoute("POST", "/api/notify/dismiss", scope: .publish, speaks: .awtrix) { exchange, _, nookd in
                dismiss(exchange, nookd)
            },
        ] + AWTRIXDevice.Request.allCases.filter { $0 != .sendscreen }.map { request in
            HTTPRoute("POST", "/api/\(request.rawValue)", scope: .publish, speaks: .awtrix) { exchange, _, nookd in
                answer(request, exchange, nookd)
            }
        }
    }

    /// nookd's status, read, or the failure answered.
    static func withStatus(_ exchange: any HTTPExchange, _ nookd: any NookdCalls, then: @escaping (StatusAnswer) -> Void) {
        nookd.ask(.status, for: exchange) { json in
            do { then(try StatusAnswer(json: json)) } catch {
                exchange.respond(HTTPAPIError(status: 502, code: "nookd_error", message: "nookd's status cannot be read: \(error)").response)
            }
        }
    }

    static func answer(_ request: AWTRIXDevice.Request, _ exchange: any HTTPExchange, _ nookd: any NookdCalls) {
        if let number = request.indicatorNumber { return indicator(number, exchange, nookd) }
        if request == .moodlight { return moodLight(exchange, nookd) }
        if request.playsSound { return sound(request, exchange, nookd) }
        if request.switchesDisplay { return display(request, exchange, nookd) }
        respond(exchange) { () throws(ProtocolError) in try AWTRIXDevice.outcome(request, body: exchange.request.body, status: nil) }
    }

    /// AWTRIX's `OK` for what was done, 501 for what was not, or the refusal of what cannot be read.
    static func respond(_ exchange: any HTTPExchange, _ outcome: () throws(ProtocolError) -> AWTRIXDevice.Outcome) {
        do {
            switch try outcome() {
            case .done(let remarks): exchange.respond(AWTRIXAppRoutes.ok(remarks))
            case .notDone(let lines): exchange.respond(notDone(lines).response)
            }
        } catch {
            exchange.respond(AWTRIXAppRoutes.refusal(error).response)
        }
    }

    /// `power`, `sleep`, `settings` (M1): read against the board's status (`settings` compares
    /// with it, `ABRI` off keeps the brightness on the glass), then switched or set by nookd's
    /// `display` and, for `VOL` and `SOUND`, its `sound-volume`; what nookd says is not so (a brightness it does not set, a glass still dark
    /// for want of anyone there) and the settings Nook does not take are 501 `not_done`.
    static func display(_ request: AWTRIXDevice.Request, _ exchange: any HTTPExchange, _ nookd: any NookdCalls) {
        withStatus(exchange, nookd) { status in
            let part: AWTRIXDevice.DisplayPart
            do throws(ProtocolError) { part = try AWTRIXDevice.display(request, body: exchange.request.body, status: status) } catch {
                return exchange.respond(AWTRIXAppRoutes.refusal(error).response)
            }
            // The display first, then the volume (settings' VOL and SOUND), each only if asked.
            func unreadable(_ error: any Error) {
                exchange.respond(HTTPAPIError(status: 502, code: "nookd_error", message: "nookd's answer cannot be read: \(error)").response)
            }
            func volume(after display: DisplayAnswer?) {
                guard let asked = part.volume else { return respond(exchange) { AWTRIXDevice.outcome(of: display, part) } }
                nookd.ask(.soundVolume(asked), for: exchange) { json in
                    do {
                        let answer = try SoundVolumeAnswer(json: json)
                        respond(exchange) { AWTRIXDevice.outcome(of: display, volume: answer, part) }
                    } catch { unreadable(error) }
                }
            }
            guard !part.setting.reads else { return volume(after: nil) }
            nookd.ask(.display(part.setting), for: exchange) { json in
                do { volume(after: try DisplayAnswer(json: json)) } catch { unreadable(error) }
            }
        }
    }

    /// `indicatorN`: the light set by nookd as AWTRIX reads the body; AWTRIX's `OK`, with what
    /// was read or drawn otherwise than sent on the lines after it.
    static func indicator(_ number: Int, _ exchange: any HTTPExchange, _ nookd: any NookdCalls) {
        let setting: NookIndicator, remarks: [String]
        do { (setting, remarks) = try AWTRIXDevice.indicator(number, body: exchange.request.body) } catch {
            return exchange.respond(AWTRIXAppRoutes.refusal(error).response)
        }
        nookd.ask(.indicator(setting), for: exchange) { json in
            let warnings = (try? IndicatorAnswer(json: json))?.warnings ?? []
            exchange.respond(AWTRIXAppRoutes.ok(remarks + warnings))
        }
    }

    /// `moodlight`: the whole glass lit by nookd's `home` as AWTRIX reads the body, or the light
    /// off; AWTRIX's `OK`, with what was read otherwise than sent on the lines after it.
    static func moodLight(_ exchange: any HTTPExchange, _ nookd: any NookdCalls) {
        let setting: HomeSetting, remarks: [String]
        do { (setting, remarks) = try AWTRIXDevice.moodLight(body: exchange.request.body) } catch {
            return exchange.respond(AWTRIXAppRoutes.refusal(error).response)
        }
        nookd.ask(.home(setting), for: exchange) { _ in exchange.respond(AWTRIXAppRoutes.ok(remarks)) }
    }

    /// `sound`, `rtttl` (B4): played by nookd as AWTRIX reads the body. Played is AWTRIX's `OK`
    /// (a level the room lowered it to on a line after it); not played (no output, silenced by
    /// the room) is 501 `not_done` saying why. A sound Nook cannot play at all is refused naming
    /// the field (422): a name it has no chime for (AWTRIX's 404 `FileNotFound`, but M1 allows no
    /// 404 on a documented route, which a client reads as a route the board lacks), and a bad
    /// RTTTL string naming the character at fault, where AWTRIX answers `OK` and plays nothing.
    static func sound(_ request: AWTRIXDevice.Request, _ exchange: any HTTPExchange, _ nookd: any NookdCalls) {
        func refuse(_ error: ProtocolError) {
            exchange.respond(AWTRIXAppRoutes.refusal(AWTRIXDevice.refusal(error, for: request)).response)
        }
        let read: SoundRequest?, remarks: [String]
        do { (read, remarks) = try AWTRIXDevice.sound(request, body: exchange.request.body) } catch { return refuse(error) }
        guard let asked = read else { return exchange.respond(notDone([AWTRIXDevice.nothingToPlay(request)]).response) }
        nookd.callForResult(exchange.caller.request(.soundPlay(asked))) { result in
            switch result {
            case .success(let json):
                do {
                    switch AWTRIXDevice.outcome(of: try SoundPlayAnswer(json: json), for: request, remarks: remarks) {
                    case .done(let remarks): exchange.respond(AWTRIXAppRoutes.ok(remarks))
                    case .notDone(let lines): exchange.respond(notDone(lines).response)
                    }
                } catch {
                    exchange.respond(HTTPAPIError(status: 502, code: "nookd_error", message: "nookd's answer cannot be read: \(error)").response)
                }
            case .failure(.refused(let json)) where ProtocolError(json: json)?.field == "sound":
                if let error = ProtocolError(json: json) { refuse(error) }
            case .failure(.outcomeUnknown(let reason)):
                // A card's advice (look in the history, send it with its id) does not hold: a
                // sound has no entry and no id, and sent again it plays again.
                exchange.respond(NativeAPIErrors.outcomeUnknown(reason, advice: "the sound may have played: sent again, it may play twice; "
                                                                + "nookd's log says (a sound with no card has no history entry)").response)
            case .failure(let failure): exchange.respond(nookd.failure(failure).response)
            }
        }
    }

    /// A request Nook did not carry out: 501, each line what was asked and what Nook does.
    static func notDone(_ lines: [String]) -> HTTPAPIError {
        HTTPAPIError(status: 501, code: "not_done", field: lines.count == 1 ? lines[0].split(separator: ":").first.map(String.init) : nil,
                     message: "not done: " + lines.joined(separator: "; "))
    }

    /// `notify/dismiss`: the held notification on the glass goes, as on an AWTRIX clock, when
    /// it is the caller's (nookd refuses another sender's: it stays, said after the `OK`). With
    /// none there, AWTRIX's `OK` and a line.
    static func dismiss(_ exchange: any HTTPExchange, _ nookd: any NookdCalls) {
        withStatus(exchange, nookd) { status in
            guard let held = status.modules.compactMap(\.current).first(where: \.isBlocker) else {
                return exchange.respond(AWTRIXAppRoutes.ok(["no held notification on the glass to dismiss"]))
            }
            let request = exchange.caller.request(.dismiss(held.id))
            nookd.callForResult(request) { result in
                switch result {
                case .success: exchange.respond(AWTRIXAppRoutes.ok([]))
                case .failure(.refused(let json)) where request.sender != nil && ProtocolError(json: json)?.code == .forbidden:
                    exchange.respond(AWTRIXAppRoutes.ok(["the held notification on the glass is another sender's: it stays"]))
                case .failure(let failure): exchange.respond(nookd.failure(failure).response)
                }
            }
        }
    }
}
