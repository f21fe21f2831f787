import NookActivities
import NookHTTP
import NookProtocol
import Testing

/// M2 at `POST /api/notify`: a notification's drawing is read as a custom app's is, so a
/// malformed or unknown command is named in the answer, never answered with a plain card.
struct AWTRIXNotifyDrawingTests {
    func refusal(_ body: String) -> HTTPAPIError? {
        if case .failure(let error) = AWTRIXNotification.decode(Array(body.utf8)) { return error }
        return nil
    }

    @Test func m2_aMalformedOrUnknownDrawingIsNamedInTheAnswer() throws {
        #expect(refusal(#"{"draw": [{"dp": [1]}]}"#)?.field == "draw[0].dp")
        #expect(refusal(#"{"draw": [{"dp": [999, 0, "red"]}]}"#)?.field == "draw[0]")
        let notArray = refusal(#"{"draw": "x"}"#)
        #expect(notArray?.field == "draw" && notArray?.message.contains("must be an array") == true, "\(String(describing: notArray))")
        let unknown = refusal(#"{"draw": [{"dq": [1]}]}"#)
        #expect(unknown?.status == 400 && unknown?.field == "text" && unknown?.message.contains("draw[0].dq") == true, "\(String(describing: unknown))")
        // A drawing that draws is still a card titled as one, its unknown command named.
        let card = AWTRIXMapping.card(for: try AWTRIXNotification.decode(Array(#"{"draw": [{"dq": [1]}, {"dp": [0, 0, "red"]}]}"#.utf8)).get(),
                                      id: NookActivityID(), module: nil)
        #expect(card.activity.title == "AWTRIX drawing" && card.notes.contains { $0.contains("draw[0].dq") }, "\(card.notes)")
    }
}
