import NookActivities
import NookHTTP
import NookProtocol
import Testing

/// B4 through M4: LaMetric's `model.sound`, in demetriek's `Sound` and `SoundURL` shapes, as
/// the card's sound; what does not play is a note, and the card is kept.
struct LaMetricSoundTests {
    /// The card's sound and what was said.
    struct Heard: Equatable {
        var sound: String?
        var notes: [String] = []
        var soundRepeat: NookSoundRepeat?
    }

    static func card(sound: String, priority: String = "info") throws -> Heard {
        let card = try LaMetricNotificationTests.card(#"{"priority":"\#(priority)","model":{"frames":[{"text":"x"}],"sound":\#(sound)}}"#)
        return Heard(sound: card.activity.sound, notes: card.notes, soundRepeat: card.activity.soundRepeat)
    }

    @Test func b4_m4_aLaMetricSoundIdInEitherCategoryIsTheCardsSound() throws {
        #expect(try Self.card(sound: #"{"category":"notifications","id":"knock-knock","repeat":1}"#) == Heard(sound: "knock-knock"))
        #expect(try Self.card(sound: #"{"category":"alarms","id":"alarm3"}"#) == Heard(sound: "alarm3"))
        // demetriek leaves the category out when it infers it.
        #expect(try Self.card(sound: #"{"id":"positive1"}"#) == Heard(sound: "positive1"))
    }

    @Test func b4_m4_anUnknownIdOrCategoryIsSaidAndTheCardKeptWithItsPrioritysSound() throws {
        let id = try Self.card(sound: #"{"category":"notifications","id":"trumpet"}"#, priority: "warning")
        #expect(id.sound == nil && id.notes == ["model.sound.id 'trumpet' not played: Nook has no chime for it (docs/sound.md lists LaMetric's ids); "
                                                + "the card comes with its priority's sound instead (nook.toml's [sound] high, if set)"], "\(id)")
        let category = try Self.card(sound: #"{"category":"ringtones","id":"win"}"#)
        #expect(category.sound == nil && category.notes.first?.hasPrefix(
            "model.sound 'win' not played: category 'ringtones' is not one of LaMetric's (notifications, alarms); ") == true, "\(category)")
        let shape = try Self.card(sound: #""win""#)
        #expect(shape.sound == nil && shape.notes.first?.hasPrefix("model.sound ignored: must be an object") == true, "\(shape)")
        let noID = try Self.card(sound: #"{"category":"alarms","id":3}"#)
        #expect(noID.sound == nil && noID.notes.first?.hasPrefix("model.sound.id missing or not a string") == true, "\(noID)")
    }

    @Test func b2_b4_m4_aRepeatIsTheCardsCountOfPlaysAndZeroPlaysUntilEngaged() throws {
        #expect(try Self.card(sound: #"{"id":"win","repeat":3}"#) == Heard(sound: "win", soundRepeat: .times(3)))
        #expect(try Self.card(sound: #"{"id":"win","repeat":100}"#) == Heard(sound: "win", soundRepeat: .times(100)))
        #expect(try Self.card(sound: #"{"id":"alarm1","repeat":0}"#) == Heard(sound: "alarm1", soundRepeat: .untilEngaged))
        // More than nookd plays is cut to what it plays, said; the card is never refused for it.
        #expect(try Self.card(sound: #"{"id":"win","repeat":250}"#)
                == Heard(sound: "win", notes: ["model.sound.repeat 250: 'win' played 100 times, as many as nookd plays (at most 100, and 15 minutes in all)"],
                         soundRepeat: .times(100)))
        // A repeat belongs to the sound it repeats: none where it does not play.
        #expect(try Self.card(sound: #"{"id":"trumpet","repeat":3}"#).soundRepeat == nil)
        #expect(try Self.card(sound: #"{"id":"win","repeat":-2}"#).notes
                == ["model.sound.repeat ignored: must be a whole number (0 until dismissed), got -2.0; played once"])
    }

    @Test func b4_m4_aSoundURLIsNotFetchedAndItsFallbackPlays() throws {
        let fallback = try Self.card(sound: #"{"url":"https://example.com/door.mp3","type":"mp3","fallback":{"category":"notifications","id":"open_door"}}"#)
        #expect(fallback == Heard(sound: "open_door", notes: ["model.sound.url 'https://example.com/door.mp3' not played: Nook fetches no sound from the network "
                                           + "(nor plays MP3); its fallback plays instead"]), "\(fallback)")
        let bare = try Self.card(sound: #"{"url":"https://example.com/door.mp3"}"#)
        #expect(bare.sound == nil && bare.notes.count == 1 && bare.notes[0].contains("no fallback given, so the card comes with its priority's sound"), "\(bare)")
        let badFallback = try Self.card(sound: #"{"url":"https://example.com/door.mp3","fallback":{"id":"gong","volume":3}}"#)
        #expect(badFallback.sound == nil && badFallback.notes.contains("model.sound.fallback.volume is not a field Nook reads: ignored")
                && badFallback.notes.contains { $0.hasPrefix("model.sound.fallback.id 'gong' not played") }, "\(badFallback)")
    }
}
