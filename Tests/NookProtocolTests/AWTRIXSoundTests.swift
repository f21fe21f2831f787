import NookActivities
import NookProtocol
import Testing

/// M1 and B4: AWTRIX's `sound` and `rtttl`, read as AWTRIX 3 reads them (`parseSound` takes
/// `{"sound": NAME}` or, when the body is not JSON, the name itself; `/api/rtttl` the string as
/// the body), become nookd's `sound-play` at normal priority; its answer becomes AWTRIX's `OK`,
/// or what was not played, said.
@Suite struct AWTRIXSoundTests {
    func read(_ request: AWTRIXDevice.Request, _ body: String) throws -> (request: SoundRequest?, remarks: [String]) {
        try AWTRIXDevice.sound(request, body: Array(body.utf8))
    }

    func refusal(_ request: AWTRIXDevice.Request, _ body: String) -> ProtocolError? {
        do throws(ProtocolError) { _ = try AWTRIXDevice.sound(request, body: Array(body.utf8)); return nil } catch { return error }
    }

    @Test func m1_b4_aSoundBodyIsReadInEachFormAWTRIXTakes() throws {
        let alarm = SoundRequest(sound: "alarm", priority: .normal)
        for body in [#"{"sound": "alarm"}"#, "alarm", " alarm\n"] {
            let read = try read(.sound, body)
            #expect(read.request == alarm && read.remarks.isEmpty, "\(body): the object, or the name alone as parseSound falls back to")
        }
        let twice = try read(.sound, #"{"sound": "siren", "sound": "alarm"}"#)
        #expect(twice.request == alarm && twice.remarks.first?.hasPrefix("given twice") == true, "\(twice.remarks)")
        #expect(try read(.sound, #"{"sound": "alarm", "volume": 3}"#).remarks == ["unknown fields (not AWTRIX's), ignored: volume"])
        #expect(try read(.sound, #"{"sound": 12}"#).request?.sound == "12", "a DFPlayer's track number, as its text")
    }

    @Test func m1_b4_aSoundBodyWithNoSoundInItIsRefusedNamingTheField() {
        #expect(refusal(.sound, "{}")?.field == "sound" && refusal(.sound, "{}")?.code == .missingField)
        #expect(refusal(.sound, #"{"sound": true}"#)?.code == .wrongType)
        #expect(refusal(.sound, #""alarm""#)?.field == "body", "JSON that is no object: AWTRIX finds no sound in it either")
        #expect(refusal(.sound, "{")?.code == .badJSON)
        let melody = refusal(.sound, #"{"sound": "two:d=4,o=5,b=100:e,c"}"#)
        #expect(melody?.field == "sound" && melody?.message.contains("an RTTTL string goes to rtttl") == true, "\(String(describing: melody))")
    }

    @Test func m1_b4_anRTTTLBodyIsTheStringOrAsAWTRIXClientSendsItAnObject() throws {
        let melody = "two short:d=4,o=5,b=100:16e6,16e6"
        for body in [melody, #"{"rtttl": "two short:d=4,o=5,b=100:16e6,16e6"}"#] {
            let read = try read(.rtttl, body)
            #expect(read.request == SoundRequest(sound: melody) && read.remarks.isEmpty, "\(body)")
        }
        #expect(refusal(.rtttl, #"{"sound": "alarm"}"#)?.field == "rtttl")
        let name = refusal(.rtttl, "alarm")
        #expect(name?.field == "rtttl" && name?.message.contains("goes to sound") == true, "\(String(describing: name))")
    }

    /// An empty body asks for nothing: not done, saying what to send (never a 404 for the route).
    @Test func m1_b4_anEmptyBodyIsNotDoneSayingWhatToSend() throws {
        for request in [AWTRIXDevice.Request.sound, .rtttl] {
            #expect(try read(request, " \n").request == nil)
            let outcome = try AWTRIXDevice.outcome(request, body: [], status: nil)
            #expect(outcome == .notDone(["\(request.label): nothing to play: send " + (request == .sound ? "{\"sound\": \"alarm\"}, or the name alone as the body"
                                                                                       : "the RTTTL string as the body (name:d=4,o=5,b=100:notes)")]), "\(outcome)")
        }
    }

    @Test func m1_b4_playedIsOKAndNotPlayedIsNotDoneSayingWhy() {
        let played = SoundPlayAnswer(sound: "alarm", played: true, volume: 80, outcome: "played")
        #expect(AWTRIXDevice.outcome(of: played, for: .sound, remarks: []) == .done())
        let lowered = SoundPlayAnswer(sound: "alarm", played: true, volume: 20, outcome: "played at 20 (quiet hours)")
        #expect(AWTRIXDevice.outcome(of: lowered, for: .sound, remarks: ["r"]) == .done(remarks: ["r", "sound: played at 20 (quiet hours)"]))
        let silenced = SoundPlayAnswer(sound: "x", played: false, volume: nil, outcome: "silenced (quiet hours)")
        #expect(AWTRIXDevice.outcome(of: silenced, for: .rtttl, remarks: []) == .notDone(["rtttl: not played: silenced (quiet hours)"]))
        let bad = ProtocolError(.invalid, field: "sound", "RTTTL: 9 is not a duration at character 20")
        #expect(AWTRIXDevice.refusal(bad, for: .rtttl).field == "rtttl" && AWTRIXDevice.refusal(bad, for: .sound) == bad)
    }

    /// A body that is not UTF-8 is refused naming it: read with U+FFFD for the bad bytes, a name
    /// would be one nobody sent, and an RTTTL string would play under a name it does not have.
    @Test func m1_b4_aBodyThatIsNotUTF8IsRefusedNamingTheBody() {
        for (request, body) in [(AWTRIXDevice.Request.sound, Array("al".utf8) + [0xFF] + Array("rm".utf8)),
                                (.rtttl, [0xC3] + Array(":d=4,o=5,b=100:c".utf8))] {
            do throws(ProtocolError) {
                let read = try AWTRIXDevice.sound(request, body: body)
                Issue.record("\(request.label): read as \(String(describing: read.request))")
            } catch {
                #expect(error.field == "body" && error.code == .invalid && error.message.contains("not UTF-8"), "\(error)")
            }
        }
    }

    /// A NUL reached nookd, whose protocol carries none, and came back as a 502 blaming nookd:
    /// it is the sender's, refused naming the field and where it is.
    @Test func m1_b4_aNULInASoundIsRefusedNamingTheFieldNotSentToNookd() {
        for (request, body) in [(AWTRIXDevice.Request.sound, "al\u{0}arm"), (.rtttl, "x:d=4,o=5,b=100:c,\u{0}d")] {
            let error = refusal(request, body)
            #expect(error?.field == request.label && error?.code == .invalid && error?.message.hasPrefix("has a NUL (U+0000) at character ") == true,
                    "\(request.label) \(body.debugDescription): \(String(describing: error))")
        }
        // In JSON, the reader refuses it already.
        #expect(refusal(.sound, #"{"sound": "al\u0000arm"}"#)?.code == .badJSON)
    }

    /// A JSON string body looks like the name alone, quotes and all: the refusal says so.
    @Test func m1_b4_aJSONStringBodyIsSaidToBeOneQuotesAndAll() {
        let error = refusal(.sound, #""alarm""#)
        #expect(error?.message == #"is a JSON string, quotes and all: send {"sound": "alarm"}, or the name alone as the body (no quotes)"#,
                "\(String(describing: error))")
    }

    @Test func m1_b4_theTopicsAndRoutesThatPlayAreSoundAndRTTTLOnly() {
        #expect(AWTRIXDevice.Request.allCases.filter(\.playsSound) == [.sound, .rtttl])
        #expect(AWTRIXDevice.soundPriority == .normal)
    }
}

/// B4 on the wire: `sound-play`'s fields are read as the table's row reads them, each fault
/// named; its answers read back.
@Suite struct SoundOperationTests {
    func decode(_ fields: [(String, JSONValue)]) -> Result<NookOperation, ProtocolError> {
        NookOperation.Name.soundPlay.decode(fields)
    }

    func field(_ fields: [(String, JSONValue)]) -> String? {
        if case .failure(let error) = decode(fields) { error.field } else { nil }
    }

    @Test func b4_aSoundRequestTakesASoundAPriorityAndAVolume() throws {
        #expect(try decode([("sound", .string("doorbell"))]).get() == .soundPlay(SoundRequest(sound: "doorbell")))
        let full = try decode([("sound", .string("doorbell")), ("priority", .string("high")), ("volume", .number(30))]).get()
        #expect(full == .soundPlay(SoundRequest(sound: "doorbell", priority: .high, volume: 30)))
        #expect(field([]) == "sound" && field([("sound", .string(""))]) == "sound")
        #expect(field([("sound", .string(String(repeating: "c", count: NookActivity.Limits.soundCharacters + 1)))]) == "sound")
        #expect(field([("sound", .string("doorbell")), ("priority", .string("urgent"))]) == "priority")
        for volume in [-1, 101, 1.5] { #expect(field([("sound", .string("doorbell")), ("volume", .number(volume))]) == "volume", "\(volume)") }
        #expect(NookOperation.soundPlay(SoundRequest(sound: "x")).changesSomething && NookOperation.soundStop.scope == .anyone)
    }

    @Test func b4_theAnswersReadBackAndSayWhatBecameOfTheSound() throws {
        let played = SoundPlayAnswer(sound: "doorbell", played: true, volume: 20, outcome: "played at 20 (quiet hours)",
                                     warnings: ["volume 90 asked: played no louder than sound.volume in nook.toml, 80"])
        #expect(try SoundPlayAnswer(json: played.json) == played)
        #expect(played.summary == "sound 'doorbell': played at 20 (quiet hours)")
        let not = SoundPlayAnswer(sound: "doorbell", played: false, volume: nil, outcome: "silenced (quiet hours)")
        #expect(try SoundPlayAnswer(json: not.json) == not && !"\(not.json)".contains("volume"))
        #expect(not.summary == "sound 'doorbell' not played: silenced (quiet hours)")
        #expect(try SoundStopAnswer(json: SoundStopAnswer(stopped: "alarm").json).summary == "stopped 'alarm'")
        #expect(try SoundStopAnswer(json: SoundStopAnswer(stopped: nil).json).summary == "no sound was playing")
    }
}
