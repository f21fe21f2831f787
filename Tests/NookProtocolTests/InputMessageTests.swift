import NookProtocol
import Testing

@Suite("E8 input presses on the wire")
struct InputMessageTests {
    @Test func e8_anInputEventRoundTripsAndOtherEventsAreNotInputs() throws {
        let message = InputMessage(input: .dismiss, source: "gpio:button")
        let line = ResponseLine.event(id: .number(3), event: message.json).encoded()
        #expect(line.contains(#""event":"input""#), "\(line)")
        guard case .event(_, let event) = try ResponseLine.decode(Array(line.utf8)) else { Issue.record("not an event: \(line)"); return }
        #expect(InputMessage(json: event) == message)
        // A watch event, an overflow notice and an input this build does not know are not presses.
        #expect(InputMessage(json: OverflowMessage(module: "main", dropped: 2).json) == nil)
        #expect(InputMessage(json: try JSONValue.parse(Array(#"{"event":"input","input":"knob","source":"gpio:k"}"#.utf8))) == nil)
        #expect(try InputsAnswer(json: InputsAnswer().json) == InputsAnswer())
        #expect(try PressAnswer(json: PressAnswer(pressed: .open).json).pressed == .open)
    }

    @Test func e8_aPressTheGlassTookSaysSoAndAnOlderEventIsNotTaken() throws {
        let taken = InputMessage(input: .open, source: "press", taken: true)
        #expect(InputMessage(json: taken.json) == taken)
        #expect(InputMessage(json: try JSONValue.parse(Array(#"{"event":"input","input":"open","source":"press"}"#.utf8)))?.taken == false)
    }

    @Test func e8_aPressNamingNoInputIsRefusedNamingTheField() {
        for line in [#"{"op":"press"}"#, #"{"op":"press","input":"knob"}"#, #"{"op":"press","input":"open","extra":1}"#] {
            guard case .failure(let failure) = Request.decode(Array(line.utf8)) else { Issue.record("accepted \(line)"); continue }
            #expect(["input", "extra"].contains(failure.error.field ?? ""), "\(line): \(failure.error)")
        }
    }

    @Test func u5_aPressCarriesHowLongTheButtonWasHeld() throws {
        for operation in [NookOperation.press(.open, holdMs: 900), .press(.open, holdMs: 0), .press(.dismiss)] {
            let line = Request(id: .number(2), operation: operation).encoded()
            #expect(try Request.decode(Array(line.utf8)).get().operation == operation, "\(line)")
        }
        #expect(Request(id: .number(2), operation: .press(.open, holdMs: 900)).encoded().contains(#""holdMs":900"#))
        for hold in ["-1", "0.5", "60001", "\"long\""] {
            let line = #"{"op":"press","input":"open","holdMs":"# + hold + "}"
            guard case .failure(let failure) = Request.decode(Array(line.utf8)) else { Issue.record("accepted \(line)"); continue }
            #expect(failure.error.field == "holdMs", "\(line): \(failure.error)")
        }
    }
}
