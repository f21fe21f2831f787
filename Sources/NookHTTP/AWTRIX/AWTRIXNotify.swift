import NookActivities
import NookProtocol

extension AWTRIXNotification {
    /// The notification a `POST /api/notify` carries (H2), or its refusal as AWTRIX's senders
    /// are answered: 400 naming the field, 422 for a progress outside AWTRIX's range.
    public static func decode(_ body: [UInt8]) -> Result<AWTRIXNotification, HTTPAPIError> {
        do { return .success(try parse(body)) } catch { return .failure(refusal(error)) }
    }

    static func refusal(_ error: ProtocolError) -> HTTPAPIError {
        switch error.code {
        case .badJSON: HTTPAPIError(status: 400, code: "malformed_json", field: error.field, message: error.message)
        case .missingField: HTTPAPIError(status: 400, code: "missing_field", field: error.field, message: error.message)
        case .invalid where error.field == "progress": HTTPAPIError(status: 422, code: "invalid_field", field: error.field, message: error.message)
        default: HTTPAPIError(status: 400, code: "invalid_field", field: error.field, message: error.message)
        }
    }
}

public enum AWTRIXMapping {
    public static func card(for notification: AWTRIXNotification, id: NookActivityID, module: String?) -> PublishedCard {
        var notes: [String] = []
        let activity = notification.activity(id: id, notes: &notes)
        return PublishedCard(activity: activity, module: module, notes: notes, senderFields: AWTRIXNotification.senderFields)
    }
}
