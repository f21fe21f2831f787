import NookActivities
import NookProtocol

/// One message as a Gotify sender posts it to `POST /message` (H2): JSON, or a form
/// (`curl -F`, `--data-urlencode`), with `title`, `message` (required), `priority` 0–10 and
/// JSON `extras`; and its card, by the table in docs/publishing.md.
public struct GotifyMessage: Sendable, Equatable {
    public var title: String?
    public var message: String
    /// Nil when the sender gave none (Gotify then uses the application's default).
    public var priority: Int?
    /// `extras["client::display"]["contentType"] == "text/markdown"`.
    public var markdown: Bool
    public var notes: [String]

    public init(title: String? = nil, message: String, priority: Int? = nil, markdown: Bool = false, notes: [String] = []) {
        (self.title, self.message, self.priority, self.markdown, self.notes) = (title, message, priority, markdown, notes)
    }

    public static func decode(_ request: HTTPRequest) -> Result<GotifyMessage, HTTPAPIError> {
        do throws(HTTPAPIError) {
            let contentType = request.header("content-type") ?? ""
            if let form = FormBody.fields(contentType: contentType, body: request.body) {
                switch form {
                case .failure(let failure): throw HTTPAPIError(status: 400, code: "invalid_body", field: "body", message: failure.message)
                case .success(let fields): return .success(try checked(fromForm(fields)))
                }
            }
            let value: JSONValue
            do { value = try JSONValue.parse(request.body) } catch {
                throw HTTPAPIError(status: 400, code: "malformed_json", field: "body",
                                   message: "a Gotify message is a JSON object or a form with title, message and priority: \(error)")
            }
            return .success(try checked(fromJSON(value)))
        } catch {
            return .failure(error)
        }
    }

    static func fromJSON(_ value: JSONValue) throws(HTTPAPIError) -> GotifyMessage {
        guard case .object = value else {
            throw HTTPAPIError(status: 400, code: "invalid_field", field: "body", message: "must be a JSON object, got \(value.typeName)")
        }
        func string(_ key: String) throws(HTTPAPIError) -> String? {
            switch value[key] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            case let other?: throw HTTPAPIError(status: 400, code: "invalid_field", field: key, message: "must be a string, got \(other.typeName)")
            }
        }
        var message = GotifyMessage(title: try string("title"), message: try requiredMessage(try string("message")))
        switch value["priority"] {
        case nil, .null?: break
        case .number(let number)?: message.priority = try priority(number, notes: &message.notes)
        case let other?: throw HTTPAPIError(status: 400, code: "invalid_field", field: "priority", message: "must be a whole number from 0 to 10, got \(other.typeName)")
        }
        switch value["extras"] {
        case nil, .null?: break
        case .object?:
            if value["extras"]?["client::display"]?["contentType"]?.text?.lowercased() == "text/markdown" { message.markdown = true }
            if value["extras"]?["client::notification"] != nil { message.notes.append("extras client::notification ignored: a board has nothing to open") }
        case let other?: throw HTTPAPIError(status: 400, code: "invalid_field", field: "extras", message: "must be a JSON object, got \(other.typeName)")
        }
        return message
    }

    static func fromForm(_ fields: [(name: String, value: String)]) throws(HTTPAPIError) -> GotifyMessage {
        func field(_ name: String) -> String? { fields.first { $0.name == name }?.value }
        var message = GotifyMessage(title: field("title"), message: try requiredMessage(field("message")))
        if let text = field("priority"), !text.trimmingCharacters().isEmpty {
            // Decimal digits only, as Gotify reads a form's integer: `0x10`, `1e1` or `inf`,
            // which a floating-point reading would take, are no priority.
            let digits = text.trimmingCharacters()
            let unsigned = digits.first == "+" || digits.first == "-" ? digits.dropFirst() : digits[...]
            guard !unsigned.isEmpty, unsigned.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  let number = Double(digits) else {
                throw HTTPAPIError(status: 400, code: "invalid_field", field: "priority", message: "must be a whole number from 0 to 10, got '\(text)'")
            }
            message.priority = try priority(number, notes: &message.notes)
        }
        return message
    }

    /// A form's fields are percent-decoded and may hold a NUL; JSON's never do (the parser refuses it).
    private static func checked(_ message: GotifyMessage) throws(HTTPAPIError) -> GotifyMessage {
        try PublishText.refuseNUL(message.title, field: "title")
        try PublishText.refuseNUL(message.message, field: "message")
        return message
    }

    private static func requiredMessage(_ text: String?) throws(HTTPAPIError) -> String {
        guard let text, !text.allSatisfy(\.isWhitespace) else {
            throw HTTPAPIError(status: 400, code: "missing_field", field: "message", message: "is required: the text of the message")
        }
        return text
    }

    /// Gotify takes any integer; outside 0–10 is read as the nearest end, with a note.
    private static func priority(_ number: Double, notes: inout [String]) throws(HTTPAPIError) -> Int {
        guard number.isFinite, number == number.rounded() else {
            throw HTTPAPIError(status: 400, code: "invalid_field", field: "priority", message: "must be a whole number from 0 to 10, got \(number)")
        }
        if number < 0 || number > 10 {
            let shown = abs(number) < 1e15 ? String(Int64(number)) : String(number)
            notes.append("priority \(shown) read as \(number < 0 ? 0 : 10)")
            return number < 0 ? 0 : 10
        }
        return Int(number)
    }
}

/// A Gotify message as a card (H2).
public enum GotifyMapping {
    /// Gotify priority → the card, in the bands Gotify's own clients use (0 silent, 1–3 low,
    /// 4–7 normal, 8–10 high); 10 stays until dismissed. A message without one is normal.
    public static func row(forPriority priority: Int?) -> NtfyMapping.PriorityRow {
        guard let priority else { return NtfyMapping.row(forPriority: 3) }
        switch priority {
        case ...3: return NtfyMapping.row(forPriority: 2)
        case 4...7: return NtfyMapping.row(forPriority: 3)
        case 8...9: return NtfyMapping.row(forPriority: 4)
        default: return NtfyMapping.row(forPriority: 5)
        }
    }

    public static func card(for message: GotifyMessage, id: NookActivityID, module: String?) -> PublishedCard {
        var notes = message.notes
        let text = message.markdown ? PublishText.plainMarkdown(message.message) : message.message
        let (title, subtitle) = PublishText.titleAndSubtitle(title: message.title.map { message.markdown ? PublishText.plainMarkdown($0) : $0 }, message: text)
        let (fittedTitle, fittedSubtitle) = PublishText.fitted(title: title.isEmpty ? "Gotify" : title, subtitle: subtitle, notes: &notes)
        let mapped = row(forPriority: message.priority)
        let icon = mapped.priority == .high ? "exclamationmark.triangle" : "bell"
        let activity = NookActivity(id: id, priority: mapped.priority, title: fittedTitle, subtitle: fittedSubtitle, systemImage: icon,
                                    tint: mapped.tint ?? .accent, dwell: mapped.dwell, presentation: mapped.presentation)
        // Without a title the message's first line is the card's title.
        let titleField = message.title.map { !PublishText.collapsed($0).isEmpty } == true ? "title" : "message"
        return PublishedCard(activity: activity, module: module, notes: notes, senderFields: [
            "title": titleField, "subtitle": "message",
            "priority": "priority", "dwell": "priority", "tint": "priority", "icon": "priority", "blocker": "priority",
        ])
    }

    /// Gotify's answer: the message it stored, with its number `id` (Gotify counts messages;
    /// nook-http counts those it took since it started) and the card's id in `extras`.
    public static func answer(for message: GotifyMessage, number: Int, delivered: DeliveredCard, date: String, notes: [String]) -> JSONValue {
        var nook: [(String, JSONValue)] = [("activity", .string(delivered.id.description))]
        let allNotes = notes + delivered.warnings
        if !allNotes.isEmpty { nook.append(("notes", .array(allNotes.map(JSONValue.string)))) }
        return .object([
            ("id", .number(Double(number))), ("appid", .number(1)), ("message", .string(message.message)),
            ("title", .string(message.title ?? "")), ("priority", .number(Double(message.priority ?? 0))),
            ("extras", .object([("nook::card", .object(nook))])), ("date", .string(date)),
        ])
    }
}
