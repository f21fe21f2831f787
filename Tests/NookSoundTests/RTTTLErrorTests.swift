import NookSound
import Testing

/// Every refusal names the character it is at and what is wrong there (B2).
@Suite("B2 RTTTL errors name the position")
struct RTTTLErrorTests {
    static let cases: [(text: String, message: String, position: Int)] = [
        ("x:d=4,o=5,b=100:8c,9d", "9 is not a duration (1, 2, 4, 8, 16 or 32)", 20),
        ("x:d=4:c,k", "'k' is not a note (c, d, e, f, g, a, b, h or p)", 9),
        ("x::c9", "octave 9 is outside 3 to 8", 5),
        ("x::c2", "octave 2 is outside 3 to 8", 5),
        ("x:q=1:c", "'q' is not a setting (d=, o= and b= are)", 3),
        ("x:d=4,d=8:c", "d= is given twice", 7),
        ("x:d=3:c", "d=3 is not a duration (1, 2, 4, 8, 16 or 32)", 5),
        ("x:o=9:c", "o=9 is not an octave (3 to 8)", 5),
        ("x:b=0:c", "b=0 is not a tempo (1 to 900 beats a minute)", 5),
        ("x:b=901:c", "b=901 is not a tempo (1 to 900 beats a minute)", 5),
        ("x:b=12345:c", "a number longer than four digits", 5),
        ("x:b:c", "no '=' after b", 4),
        ("x:b=:c", "b= has no number", 5),
        ("x:b=1x:c", "'x' after b=1", 6),
        ("hello", "no ':' after the name (the form is name:d=4,o=6,b=63:notes)", 6),
        ("x:d=4", "no ':' after the settings (the form is name:d=4,o=6,b=63:notes)", 6),
        ("d=4,o=5,b=100:c,d", "settings where the name should be (the form is name:d=4,o=6,b=63:notes; the name may be empty)", 1),
        ("ring\u{7}:d=4:c", "a control character (U+0007) in the name", 5),
        ("x::\u{0}c", "U+0000 is not a note (c, d, e, f, g, a, b, h or p)", 4),
        ("x::c.6.", "a note dotted twice", 7),
        ("x::c,,d", "an empty note", 6),
        ("x::,c", "an empty note", 4),
        ("x::", "no notes", 4),
        ("x::p#", "a pause cannot be sharp", 5),
        ("x::8", "a duration without a note", 5),
        ("x::c6x", "'x' in a note", 6),
        ("x::c 6 x", "'x' in a note", 8),
        ("x::c#b", "'b' in a note", 6),
        ("x:d=1,b=4:c,c", "the melody passes 60 s with note 2", 13),
    ]

    @Test(arguments: cases.indices)
    func b2_aBadStringIsRefusedAtItsCharacter(index: Int) {
        let (text, message, position) = Self.cases[index]
        #expect(throws: SoundError("RTTTL: \(message) at character \(position)", position: position)) {
            try RTTTL.parse(text)
        }
    }

    @Test func b2_tooManyNotesIsRefusedAtTheFirstOneOver() {
        let notes = Array(repeating: "c", count: RTTTL.maximumNotes + 1).joined(separator: ",")
        let position = "many:d=32,b=900:".count + RTTTL.maximumNotes * 2 + 1
        #expect(throws: SoundError("RTTTL: more than 1024 notes at character \(position)", position: position)) {
            try RTTTL.parse("many:d=32,b=900:" + notes)
        }
    }

    @Test func b2_aStringPastTheLengthBoundIsRefused() {
        let text = "pad:b=900:c" + String(repeating: " ", count: RTTTL.maximumLength - 10)
        #expect(throws: SoundError("RTTTL: longer than 4096 characters", position: 4097)) { try RTTTL.parse(text) }
    }

    @Test func b2_positionsCountCharactersNotBytes() {
        // "é" is two bytes of UTF-8 and one character: the fault is still at character 7.
        #expect(throws: SoundError("RTTTL: 'k' is not a note (c, d, e, f, g, a, b, h or p) at character 7", position: 7)) {
            try RTTTL.parse("é:d=4:k")
        }
    }

    @Test func b2_theErrorSaysItsMessage() {
        let error = SoundError("RTTTL: no notes at character 4", position: 4)
        #expect(error.description == "RTTTL: no notes at character 4")
        #expect("\(error)" == error.message)
    }
}
