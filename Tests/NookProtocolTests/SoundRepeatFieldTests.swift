import NookActivities
import NookProtocol
import Testing

/// B2 on the wire: `soundRepeat` is a count of plays (1 to 100) or `"until-engaged"`, read the
/// same from the socket and from `nookctl --sound-repeat`, and refused naming the field otherwise.
@Suite("B2 a card's sound repeat on the wire")
struct SoundRepeatFieldTests {
    static func decode(_ value: JSONValue) throws(ProtocolError) -> NookActivity {
        try ActivityPayload.decode(.object([("title", .string("Doorbell")), ("soundRepeat", value)]))
    }

    @Test func b2_aCountOrUntilEngagedIsReadAndRoundTrips() throws {
        #expect(try Self.decode(.number(3)).soundRepeat == .times(3))
        #expect(try Self.decode(.string("until-engaged")).soundRepeat == .untilEngaged)
        #expect(try Self.decode(.null).soundRepeat == nil, "null: played once")
        #expect(try ActivityPayload.decode(.object([("title", .string("t"))])).soundRepeat == nil)
        for asked in [NookSoundRepeat.times(1), .times(100), .untilEngaged] {
            var card = NookActivity(title: "t")
            card.soundRepeat = asked
            #expect(try ActivityPayload.decode(ActivityPayload.encode(card)) == card)
        }
        #expect(ActivityPayload.encode(NookActivity(title: "t"))["soundRepeat"] == nil, "absent when played once")
    }

    @Test func b2_outOfBoundsOrOtherValuesAreRefusedNamingTheField() {
        let refusals: [(JSONValue, String)] = [
            (.number(0), "must be a count of plays from 1 to 100, or \"until-engaged\"; got 0"),
            (.number(101), "must be a count of plays from 1 to 100, or \"until-engaged\"; got 101"),
            (.number(2.5), "must be a whole count of plays, got 2.5"),
            (.string("forever"), "got 'forever'"), (.bool(true), "got a boolean"),
        ]
        for (value, words) in refusals {
            do {
                _ = try Self.decode(value)
                Issue.record("accepted \(value)")
            } catch {
                #expect(error.field == "activity.soundRepeat" && error.message.contains(words), "\(value): \(error)")
            }
        }
    }

    @Test func b2_theCommandLineReadsTheSameValuesWithTheSameWords() {
        #expect(ActivityFieldValue.soundRepeat("3") == .success(.times(3)))
        #expect(ActivityFieldValue.soundRepeat("until-engaged") == .success(.untilEngaged))
        #expect(ActivityFieldValue.soundRepeat("0") == ActivityFieldValue.soundRepeat(JSONValue.number(0)))
        #expect(ActivityFieldValue.soundRepeat("forever") == .failure(FieldProblem("must be a count of plays (1 to 100) or \"until-engaged\"; got 'forever'")))
        #expect(ActivityField.soundRepeat.flag == "--sound-repeat" && ActivityField.soundRepeat.isClearable)
    }
}
