import NookActivities
import NookProtocol
import Testing

/// B4: a card's sound checked in one place for nookd and the bridges (CardSound), and AWTRIX's
/// sound keys read as AWTRIX 3 plays them, by the one reader both bridges use.
@Suite struct CardSoundTests {
    /// The card's sound and what was said.
    struct Heard: Equatable {
        var sound: String?
        var notes: [String] = []
        var soundRepeat: NookSoundRepeat?
    }

    func notification(_ text: String) throws -> Heard {
        let read = try AWTRIXNotification.parse(Array(text.utf8))
        var notes: [String] = []
        let card = read.activity(id: NookActivityID(), notes: &notes)
        #expect(card.sound == read.sound && card.soundRepeat == read.soundRepeat)
        return Heard(sound: card.sound, notes: notes, soundRepeat: card.soundRepeat)
    }

    /// The error `body` throws; nil (recorded) when it throws none.
    static func refusal(_ body: () throws -> Void) -> ProtocolError? {
        do { try body() } catch let error as ProtocolError { return error } catch { Issue.record("\(error)"); return nil }
        Issue.record("no refusal")
        return nil
    }

    /// A name the naming spec's fallback finds a chime for, but which nookd reads otherwise (a
    /// WAV file's name, looked up in sound.directory) or refuses (a control character), is no
    /// chime to a bridge: passed on, it would cost the sender's whole card at nookd.
    @Test func b4_aNameABridgePassesIsOneNookdTakes() {
        for name in ["doorbell-x.wav", "doorbell-KNOCK.WAV", "doorbell-\u{1}", "doorbell-\u{7F}", "alarm-\n"] {
            let passed = CardSound.chime(named: name)
            #expect(passed == nil, "\(name.debugDescription) passed on as \(passed.debugDescription)")
        }
    }

    @Test func b4_nookdsCheckAndTheBridgesAgreeOnWhatPlays() throws {
        for name in ["doorbell", "message-new-instant-work", "win", "alarm3", "friends", "Bell"] {
            #expect(CardSound.chime(named: name) == name, "\(name)")
            #expect(throws: Never.self) { try CardSound.check(name, field: "activity.sound") }
        }
        // A colon makes it RTTTL to nookd, though the naming spec's fallback would find doorbell.
        for name in ["gong", "", "x:d=4:c", "0001", "doorbell-x:y"] { #expect(CardSound.chime(named: name) == nil, "\(name)") }
        #expect(CardSound.rtttlFault("two:d=4,o=5,b=100:16e6,16e6") == nil)
        #expect(CardSound.rtttlFault("two:d=4,o=5,b=100:16e6,9e6") == "RTTTL: 9 is not a duration (1, 2, 4, 8, 16 or 32) at character 24")
        // A chime's name is no RTTTL string: nookd would play the chime instead.
        #expect(CardSound.rtttlFault("alarm")?.hasPrefix("RTTTL: no ':' after the name") == true)
        #expect(throws: Never.self) { try CardSound.check("", field: "activity.sound") }
        let refusal = Self.refusal { try CardSound.check("gong", field: "changes.sound") }
        #expect(refusal?.field == "changes.sound" && refusal?.message.contains("is not a chime Nook has ('gong'") == true, "\(String(describing: refusal))")
    }

    @Test func b4_m2_anAWTRIXNotificationsRtttlOrSoundIsItsCardsSound() throws {
        let melody = "two short:d=4,o=5,b=100:16e6,16e6"
        #expect(try notification(#"{"text": "x", "rtttl": "\#(melody)"}"#) == Heard(sound: melody))
        #expect(try notification(#"{"text": "x", "sound": "alarm"}"#) == Heard(sound: "alarm"))
        #expect(try notification(#"{"text": "x", "sound": "friends", "rtttl": ""}"#) == Heard(sound: "friends"), "empty is none, as AWTRIX reads it")
        #expect(try notification(#"{"text": "x"}"#) == Heard())
    }

    @Test func b4_m2_withBothRtttlPlaysAsOnAWTRIXAndABadOneLeavesTheSoundNamingItsCharacter() throws {
        let both = try notification(#"{"text": "x", "sound": "alarm", "rtttl": "t:d=4:c,e"}"#)
        #expect(both.sound == "t:d=4:c,e" && both.notes == ["sound 'alarm' not played: rtttl was given too, which AWTRIX plays instead"], "\(both)")
        let bad = try notification(#"{"text": "x", "sound": "alarm", "rtttl": "t:d=4:c,z"}"#)
        #expect(bad.sound == "alarm" && bad.notes == ["rtttl not played: RTTTL: 'z' is not a note (c, d, e, f, g, a, b, h or p) at character 9"],
                "\(bad)")
        let alone = try notification(#"{"text": "x", "rtttl": "t:d=4:c,z"}"#)
        #expect(alone.sound == nil && alone.notes.count == 1 && alone.notes[0].contains("at character 9; the card comes with its priority's sound instead"),
                "\(alone)")
    }

    @Test func b4_m2_aSoundNookCannotPlayIsSaidAndTheCardKept() throws {
        let unknown = try notification(#"{"text": "x", "sound": "mario"}"#)
        #expect(unknown.sound == nil && unknown.notes == ["sound 'mario' not played: Nook has no chime by that name (docs/sound.md lists them;"
                                                          + " a melody of the clock's own comes as rtttl); "
                                                          + "the card comes with its priority's sound instead (nook.toml's [sound] normal, if set)"],
                "\(unknown)")
        // A DFPlayer's MP3 is a number; any other type is said, never a refusal.
        #expect(try notification(#"{"text": "x", "sound": 1}"#).notes.first?.hasPrefix("sound '1' not played") == true)
        #expect(try notification(#"{"text": "x", "sound": true, "rtttl": [1]}"#).notes.prefix(2)
                == ["sound ignored: must be a string, got a boolean", "rtttl ignored: must be a string, got an array"])
    }

    @Test func b2_b4_m2_loopSoundRepeatsTheSoundUntilEngaged() throws {
        #expect(try notification(#"{"text": "x", "sound": "siren", "loopSound": true}"#) == Heard(sound: "siren", soundRepeat: .untilEngaged))
        #expect(try notification(#"{"text": "x", "rtttl": "t:d=4:c", "loopSound": true}"#) == Heard(sound: "t:d=4:c", soundRepeat: .untilEngaged))
        // The priority's sound is not repeated for a sound that does not play.
        let unplayed = try notification(#"{"text": "x", "sound": "nochime", "loopSound": true}"#)
        #expect(unplayed.soundRepeat == nil && unplayed.notes.last == "loopSound ignored: the sound it would repeat does not play", "\(unplayed)")
        #expect(try notification(#"{"text": "x", "sound": "siren"}"#).soundRepeat == nil)
        #expect(try notification(#"{"text": "x", "loopSound": true}"#).notes == ["loopSound ignored: no sound or rtttl to repeat"])
        #expect(try notification(#"{"text": "x", "loopSound": false}"#).notes.isEmpty)
        #expect(try notification(#"{"text": "x", "sound": "siren", "loopSound": 1}"#).notes == ["loopSound ignored: must be true or false, got a number"])
    }

    @Test func b2_b4_aBridgesCountOfPlaysIsCutToWhatNookdPlays() {
        #expect(CardSound.plays(3, of: "win") == 3)
        #expect(CardSound.plays(250, of: "win") == 100)
        // Two whole notes at 30 beats a minute: 16 seconds, 56 of which fill 15 minutes (57 pass it).
        #expect(CardSound.plays(100, of: "long:d=1,o=5,b=30:c,c") == 56)
        #expect(CardSound.plays(56, of: "long:d=1,o=5,b=30:c,c") == 56)
        #expect(CardSound.plays(3, of: "nochime") == nil)
    }

    @Test func b4_a3_aCustomAppsSoundIsSaidNotPlayedAsAWTRIXPlaysNone() throws {
        guard case .set(let apps) = try AWTRIXApp.body(name: "app", Array(#"{"text": "a", "sound": "alarm", "rtttl": "t:d=4:c", "rainbow": true}"#.utf8)),
              let read = apps.first else { Issue.record("no app"); return }
        #expect(read.ignored == ["rainbow"], "\(read)")
        #expect(read.notes == ["sound, rtttl not played: AWTRIX plays a sound with a notification only, never with a custom app "
                               + "(send it to /api/notify or PREFIX/notify with the card it comes with)"], "\(read.notes)")
    }

    @Test func b4_m2_aNotificationWithNothingToShowNamesItsUnplayedSound() {
        let refusal = Self.refusal { _ = try AWTRIXNotification.parse(Array(#"{"sound": "alarm"}"#.utf8)) }
        #expect(refusal?.message.contains("sound not played: a sound plays with its card, and there is none") == true, "\(String(describing: refusal))")
    }
}
