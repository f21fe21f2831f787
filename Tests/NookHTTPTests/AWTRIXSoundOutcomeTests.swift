@testable import NookHTTP
import NookProtocol
import Testing

/// H4 and B4: nookd took an AWTRIX sound and never answered. The 504 said to look for it in the
/// history or send it again with its id, which a sound has neither of (sent again, it plays
/// again): it says what holds for a sound.
@Suite("H4 B4 an AWTRIX sound whose outcome is unknown")
struct AWTRIXSoundOutcomeTests {
    final class NeverAnswered: NookdCalls {
        func call(_ request: Request, done: @escaping (Result<JSONValue, NookdCallError>) -> Void) {
            done(.failure(.outcomeUnknown("nookd went away after it received the request")))
        }
    }

    @Test func h4_b4_aSoundNookdNeverAnsweredIsSaidMaybePlayedNotToBeLookedForInTheHistory() throws {
        let exchange = RecordingExchange(request: httpRequest("POST", "/api/sound", body: #"{"sound": "alarm"}"#))
        AWTRIXDeviceRoutes.answer(.sound, exchange, NeverAnswered())
        let response = try #require(exchange.responses.first)
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(response.status == 504 && text.contains("outcome_unknown"), "\(text)")
        #expect(text.contains("the sound may have played: sent again, it may play twice") && !text.contains("second card"), "\(text)")
    }
}
