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

    @Test func e8_aPressNamingNoInputIsRefusedNamingTheField() {
        for line in [#"{"op":"press"}"#, #"{"op":"press","input":"knob"}"#, #"{"op":"press","input":"open","extra":1}"#] {
            guard case .failure(let failure) = Request.decode(Array(line.utf8)) else { Issue.record("accepted \(line)"); continue }
            #expect(["input", "extra"].contains(failure.error.field ?? ""), "\(line): \(failure.error)")
        }
    }
}
