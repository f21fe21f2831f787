import NookActivities
import NookProtocol

/// An ntfy message as a card (H2), by the table in docs/publishing.md: title and message to
/// title and subtitle, ntfy's five priorities to the queue's three (max is a blocker), the first
/// tag that names an emoji we have a symbol for to the icon and tint, and the sequence id to the
/// coalescing key a later message with the same id updates in place (U1). Pure: the route
/// supplies the id and module.
public enum NtfyMapping {
    /// One row of the priority table.
    public struct PriorityRow: Sendable, Equatable {
        public var priority: NookActivityPriority
        public var presentation: NookActivity.Presentation
        public var dwell: Duration
        /// The tint when no tag gives one; nil keeps the theme's accent.
        public var tint: NookTint?
    }

    /// ntfy priority 1…5 → the card.
    public static func row(forPriority priority: Int) -> PriorityRow {
        switch priority {
        case ...2: PriorityRow(priority: .low, presentation: .timed, dwell: NookActivity.defaultDwell, tint: nil)
        case 3: PriorityRow(priority: .normal, presentation: .timed, dwell: NookActivity.defaultDwell, tint: nil)
        case 4: PriorityRow(priority: .high, presentation: .timed, dwell: .seconds(10), tint: .named(.orange))
        default: PriorityRow(priority: .high, presentation: .blocker(timeout: nil), dwell: NookActivity.defaultDwell, tint: .named(.red))
        }
    }

    /// ntfy's emoji short codes (its tags) that have a symbol of ours, with the tint they mean.
    /// The first tag found here gives the card its icon; other tags are words, not shown.
    public static let tagIcons: [String: (symbol: String, tint: NookTint?)] = [
        "warning": ("exclamationmark.triangle", .named(.orange)),
        "rotating_light": ("exclamationmark.triangle", .named(.red)),
        "triangular_flag_on_post": ("flag", .named(.red)),
        "skull": ("xmark.octagon", .named(.red)),
        "no_entry": ("xmark.octagon", .named(.red)),
        "no_entry_sign": ("xmark.circle", .named(.red)),
        "x": ("xmark.circle", .named(.red)),
        "-1": ("xmark.circle", .named(.red)),
        "fire": ("flame", .named(.red)),
        "+1": ("checkmark.circle", .named(.green)),
        "white_check_mark": ("checkmark.circle", .named(.green)),
        "heavy_check_mark": ("checkmark.circle", .named(.green)),
        "tada": ("checkmark.circle", .named(.green)),
        "partying_face": ("checkmark.circle", .named(.green)),
        "information_source": ("info.circle", .named(.blue)),
        "question": ("questionmark.circle", nil),
        "loudspeaker": ("megaphone", nil), "mega": ("megaphone", nil),
        "bell": ("bell", nil), "alarm_clock": ("clock", nil), "hourglass": ("hourglass", nil), "stopwatch": ("timer", nil),
        "envelope": ("envelope", nil), "email": ("envelope", nil), "incoming_envelope": ("envelope", nil),
        "computer": ("desktopcomputer", nil), "desktop_computer": ("desktopcomputer", nil), "cd": ("internaldrive", nil),
        "floppy_disk": ("internaldrive", nil), "minidisc": ("internaldrive", nil), "package": ("shippingbox", nil),
        "truck": ("truck.box", nil), "house": ("house", nil), "house_with_garden": ("house", nil), "door": ("door.left.hand.open", nil),
        "lock": ("lock", nil), "unlock": ("lock.open", nil), "key": ("key", nil), "shield": ("shield", nil),
        "zap": ("bolt", .named(.yellow)), "battery": ("battery.25", nil), "bulb": ("lightbulb", nil),
        "thermometer": ("thermometer", nil), "droplet": ("drop", .named(.blue)), "snowflake": ("snowflake", .named(.cyan)),
        "sunny": ("sun.max", .named(.yellow)), "cloud": ("cloud", nil), "umbrella": ("umbrella", nil),
        "camera": ("camera", nil), "movie_camera": ("video", nil), "musical_note": ("music.note", nil),
        "phone": ("phone", nil), "telephone_receiver": ("phone", nil), "calendar": ("calendar", nil), "date": ("calendar", nil),
        "wrench": ("wrench", nil), "hammer": ("hammer", nil), "gear": ("gear", nil), "robot": ("terminal", nil),
        "globe_with_meridians": ("globe", nil), "printer": ("printer", nil), "trophy": ("trophy", nil), "gift": ("gift", nil),
        "star": ("star", nil), "heart": ("heart", .named(.pink)), "car": ("car", nil), "airplane": ("airplane", nil),
        "moneybag": ("banknote", nil), "dollar": ("banknote", nil), "chart_with_upwards_trend": ("waveform.path.ecg", nil),
        "bug": ("ladybug", nil), "leaves": ("leaf", nil), "seedling": ("leaf", .named(.green)),
    ]

    /// The coalescing key of a topic's message: its sequence id, or its own message id, which
    /// ntfy senders use as the sequence id of later updates.
    public static func key(topic: String, sequenceID: String) -> String {
        "ntfy/\(topic)/\(sequenceID)"
    }

    /// ntfy's 12-character message id for an activity id: base 62 of its first 64 bits, so the
    /// same card always answers with the same id.
    public static func messageID(for id: NookActivityID) -> String {
        var value = id.high
        var digits = [UInt8](repeating: 0, count: 12)
        for index in digits.indices.reversed() {
            digits[index] = base62[Int(value % 62)]
            value /= 62
        }
        return String(decoding: digits, as: UTF8.self)
    }

    private static let base62 = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    public static func card(for message: NtfyMessage, id: NookActivityID, module: String?) -> PublishedCard {
        var notes = message.ignored
        let text = message.markdown ? PublishText.plainMarkdown(message.message) : message.message
        let title = message.title.map { message.markdown ? PublishText.plainMarkdown($0) : $0 }
        var (cardTitle, subtitle) = PublishText.titleAndSubtitle(title: title, message: text)
        if cardTitle.isEmpty { cardTitle = message.topic }
        let (fittedTitle, fittedSubtitle) = PublishText.fitted(title: cardTitle, subtitle: subtitle, notes: &notes)
        let mapped = row(forPriority: message.priority)
        let tagged = message.tags.lazy.compactMap { tagIcons[$0.lowercased()] }.first
        let sequence = message.sequenceID ?? messageID(for: id)
        let activity = NookActivity(id: id, coalescingKey: key(topic: message.topic, sequenceID: sequence), priority: mapped.priority,
                                    title: fittedTitle, subtitle: fittedSubtitle, systemImage: tagged?.symbol ?? "bell",
                                    tint: message.priority >= 5 ? .named(.red) : tagged?.tint ?? mapped.tint ?? .accent, dwell: mapped.dwell, presentation: mapped.presentation)
        // Without a title the message's first line is the card's title, without either the topic.
        let titleField = title.map { !PublishText.collapsed($0).isEmpty } == true ? "title" : PublishText.collapsed(text).isEmpty ? "topic" : "message"
        let tintField = message.priority < 5 && tagged?.tint != nil ? "tags" : "priority"
        return PublishedCard(activity: activity, module: module, updatesInPlace: message.sequenceID != nil, notes: notes, senderFields: [
            "title": titleField, "subtitle": "message", "icon": "tags", "tint": tintField,
            "priority": "priority", "dwell": "priority", "blocker": "priority",
            "key": message.sequenceID == nil ? "topic" : "sequence_id", "module": "topic",
        ])
    }

    /// ntfy's answer to a publish, the message as its subscribers get it (senders read `id`,
    /// newer ones `sequence_id`); `nook` says which card it became and, for an update, every
    /// card it changed (an admin's sequence id reaches every token's card with it, U3).
    public static func answer(for message: NtfyMessage, delivered: DeliveredCard, now: Int64, notes: [String]) -> JSONValue {
        let id = messageID(for: delivered.id)
        var members: [(String, JSONValue)] = [
            ("id", .string(id)), ("time", .number(Double(now))), ("expires", .number(Double(now + 12 * 3600))),
            ("event", .string("message")), ("topic", .string(message.topic)),
        ]
        if let title = message.title { members.append(("title", .string(title))) }
        members.append(("message", .string(message.message)))
        if message.priority != 3 { members.append(("priority", .number(Double(message.priority)))) }
        if !message.tags.isEmpty { members.append(("tags", .array(message.tags.map(JSONValue.string)))) }
        if message.markdown { members.append(("content_type", .string("text/markdown"))) }
        members.append(("sequence_id", .string(message.sequenceID ?? id)))
        var nook: [(String, JSONValue)] = [("activity", .string(delivered.id.description)), ("updated", .bool(delivered.updated))]
        if delivered.updated { nook.append(("activities", .array(delivered.changed.map { .string($0.description) }))) }
        let allNotes = notes + delivered.warnings
        if !allNotes.isEmpty { nook.append(("notes", .array(allNotes.map(JSONValue.string)))) }
        members.append(("nook", .object(nook)))
        return .object(members)
    }
}
