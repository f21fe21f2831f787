import NookActivities
import NookProtocol

/// One notification as an AWTRIX sender posts it to `POST /api/notify` (H2): `text` (a string,
/// or coloured fragments `[{"t": "…", "c": "FF0000"}]`), `color`, `icon`, `duration`,
/// `hold`, `progress`; the drawing and sound fields of a pixel clock are left out, noted. And
/// its card, by the table in docs/publishing.md.
public struct AWTRIXNotification: Sendable, Equatable {
    public var text: String
    public var color: NookTint?
    public var icon: String?
    /// Seconds on the glass.
    public var duration: Double?
    /// Stays until dismissed.
    public var hold: Bool
    /// 0…100.
    public var progress: Double?
    public var notes: [String]

    /// Fields AWTRIX draws or plays that a card has no place for.
    static let ignoredFields = ["textCase", "topText", "textOffset", "center", "gradient", "blinkText", "fadeText", "background",
                                "rainbow", "pushIcon", "repeat", "sound", "rtttl", "loopSound", "bar", "line", "autoscale",
                                "progressC", "progressBC", "draw", "stack", "wakeup", "noScroll", "clients", "scrollSpeed",
                                "effect", "effectSettings", "overlay", "lifetime", "lifetimeMode", "pos", "save"]

    public static func decode(_ body: [UInt8]) -> Result<AWTRIXNotification, HTTPAPIError> {
        do throws(HTTPAPIError) {
            let value: JSONValue
            do { value = try JSONValue.parse(body) } catch {
                throw HTTPAPIError(status: 400, code: "malformed_json", field: "body", message: "an AWTRIX notification is a JSON object with text: \(error)")
            }
            guard case .object(let members) = value else {
                throw HTTPAPIError(status: 400, code: "invalid_field", field: "body", message: "must be a JSON object, got \(value.typeName)")
            }
            var notification = AWTRIXNotification(text: "", hold: false, notes: [])
            var fragmentTint: NookTint?
            switch value["text"] {
            case .string(let text)?: notification.text = text
            case .array(let fragments)?:
                for (index, fragment) in fragments.enumerated() {
                    guard let piece = fragment["t"]?.text else {
                        throw HTTPAPIError(status: 400, code: "invalid_field", field: "text[\(index)].t", message: "each fragment needs its text as a string")
                    }
                    notification.text += piece
                    if fragmentTint == nil, let colour = fragment["c"] { fragmentTint = try tint(colour, field: "text[\(index)].c") }
                }
            case nil, .null?: break
            case let other?: throw HTTPAPIError(status: 400, code: "invalid_field", field: "text", message: "must be a string or an array of {\"t\", \"c\"} fragments, got \(other.typeName)")
            }
            guard !notification.text.allSatisfy(\.isWhitespace) else {
                throw HTTPAPIError(status: 400, code: "missing_field", field: "text", message: "is required: a card needs words (drawings alone are not shown)")
            }
            if let colour = value["color"], colour != .null { notification.color = try tint(colour, field: "color") }
            if notification.color == nil { notification.color = fragmentTint }
            switch value["icon"] {
            case .string(let name)?: notification.icon = name
            case nil, .null?: break
            case let other?: throw HTTPAPIError(status: 400, code: "invalid_field", field: "icon", message: "must be a string, got \(other.typeName)")
            }
            switch value["duration"] {
            case .number(let seconds)?:
                // Above 0 once read to the nanosecond a card's time is kept in: 1e-300 is 0.
                guard seconds.isFinite, seconds > 0, let kept = Duration.nookSeconds(min(seconds, 1e9)), kept > .zero else {
                    throw HTTPAPIError(status: 400, code: "invalid_field", field: "duration", message: "must be a number of seconds above 0, got \(seconds)")
                }
                notification.duration = seconds
            case nil, .null?: break
            case let other?: throw HTTPAPIError(status: 400, code: "invalid_field", field: "duration", message: "must be a number of seconds, got \(other.typeName)")
            }
            switch value["hold"] {
            case .bool(let flag)?: notification.hold = flag
            case nil, .null?: break
            case let other?: throw HTTPAPIError(status: 400, code: "invalid_field", field: "hold", message: "must be true or false, got \(other.typeName)")
            }
            switch value["progress"] {
            case .number(let percent)?:
                // AWTRIX draws no bar for -1, its default; its documented range is 0 to 100.
                guard percent == -1 || (percent >= 0 && percent <= 100) else {
                    throw HTTPAPIError(status: 422, code: "invalid_field", field: "progress",
                                       message: "must be from 0 to 100 (or -1 for no bar), got \(percent.isFinite ? String(percent) : "a number out of range")")
                }
                if percent >= 0 { notification.progress = percent }
            case nil, .null?: break
            case let other?: throw HTTPAPIError(status: 400, code: "invalid_field", field: "progress", message: "must be a number from 0 to 100, got \(other.typeName)")
            }
            let ignored = members.map(\.0).filter { ignoredFields.contains($0) }
            if !ignored.isEmpty { notification.notes.append("ignored (a card has no place for them): \(ignored.joined(separator: ", "))") }
            return .success(notification)
        } catch {
            return .failure(error)
        }
    }

    /// AWTRIX colours, read as its custom apps' are (``AWTRIXApp/tint(_:field:)``), and a
    /// palette name of the board's too.
    static func tint(_ value: JSONValue, field: String) throws(HTTPAPIError) -> NookTint {
        do { return try AWTRIXApp.tint(value, field: field) } catch {
            if case .string(let text) = value, let tint = NookTint(parsing: text) { return tint }
            throw HTTPAPIError(status: 400, code: "invalid_field", field: field, message: error.message)
        }
    }
}

public enum AWTRIXMapping {
    public static func card(for notification: AWTRIXNotification, id: NookActivityID, module: String?) -> PublishedCard {
        var notes = notification.notes
        let (title, _) = PublishText.fitted(title: PublishText.collapsed(notification.text), subtitle: nil, notes: &notes)
        var dwell = NookActivity.defaultDwell
        if let seconds = notification.duration {
            dwell = Duration.nookSeconds(min(seconds, NookActivity.Limits.longestDwell.nookSeconds)) ?? dwell
            if seconds > NookActivity.Limits.longestDwell.nookSeconds { notes.append("duration \(seconds) s is longer than a card may stay; using an hour") }
        }
        // AWTRIX icons are its own files and LaMetric numbers; a name of ours is drawn as ours.
        var symbol = "bell"
        if let icon = notification.icon {
            if NtfyMapping.isSymbolName(icon) { symbol = icon } else { notes.append("icon '\(icon)' is not one of the board's symbols; using bell") }
        }
        let activity = NookActivity(id: id, title: title, systemImage: symbol, tint: notification.color ?? .accent, dwell: dwell,
                                    presentation: notification.hold ? .blocker(timeout: nil) : .timed,
                                    progress: notification.progress.map { $0 / 100 })
        return PublishedCard(activity: activity, module: module, notes: notes, senderFields: senderFields)
    }

    /// The notification's field each field of its card comes from.
    static let senderFields = ["title": "text", "tint": "color", "dwell": "duration", "progress": "progress", "icon": "icon",
                               "blocker": "hold", "timeout": "hold"]
}

extension NtfyMapping {
    /// A name of the board's symbol table (R3): letters, digits and dots, as `exclamationmark.triangle`.
    /// nookd says which it does not know (a warning in its answer), so unknown ones reach it as
    /// names, never as paths.
    static func isSymbolName(_ name: String) -> Bool { AWTRIXApp.isSymbolName(name) }
}
