import NookActivities
import NookProtocol

/// LaMetric's notifications as Nook's cards and back (M4). Each card nook-http puts up for
/// LaMetric has the key `lametric-N`: N is the id LaMetric's clients are answered and ask
/// about (a number, as demetriek reads it).
public enum LaMetricMapping {
    static let keyPrefix = "lametric-"

    public static func key(_ id: Int64) -> String { keyPrefix + String(id) }

    /// The LaMetric id of a card's key, or nil for a card LaMetric's API did not put up.
    public static func id(ofKey key: String) -> Int64? {
        guard key.hasPrefix(keyPrefix) else { return nil }
        return Int64(key.dropFirst(keyPrefix.count))
    }

    /// Which of the card's fields came from which of LaMetric's: a refusal names the sender's.
    static let senderFields = ["title": "model.frames", "subtitle": "model.frames", "icon": "model.frames[0].icon", "progress": "goalData",
                               "dwell": "model.cycles", "blocker": "model.cycles", "expiresAfter": "lifeTime", "priority": "priority", "tint": "priority",
                               "sound": "model.sound"]

    public static func card(for notification: LaMetricNotification, id: Int64, module: String?) -> PublishedCard {
        var notes = notification.notes
        var texts: [String] = []
        var icon: String?
        var progress: Double?
        for frame in notification.frames {
            switch frame {
            case .text(let text, let frameIcon):
                texts.append(text)
                icon = icon ?? frameIcon
            case .goal(let start, let current, let end, let unit, let frameIcon):
                // Halved, as the sparkline's: a span between finite values stays finite.
                let span = end / 2 - start / 2
                progress = progress ?? (span == 0 ? 1 : min(1, max(0, (current / 2 - start / 2) / span)))
                texts.append("\(number(current)) / \(number(end))" + (unit.map { " \($0)" } ?? ""))
                icon = icon ?? frameIcon
            case .chart(let values):
                texts.append(sparkline(values))
            }
        }
        if progress != nil, notification.frames.filter({ if case .goal = $0 { true } else { false } }).count > 1 {
            notes.append("the card shows the first goalData's progress as its bar; the others as text")
        }
        var systemImage: String?
        var fallback: String?
        let typeIcon = ["info": "info.circle", "alert": "exclamationmark.triangle"][notification.iconType]
        if let icon {
            if NookIconNames.isKnown(icon) {
                systemImage = icon
            } else if AWTRIXApp.isIconLookup(icon) {
                // nookd draws ID.gif or ID.png from an icon directory, or says the card shows
                // icon_type's icon (M3).
                (systemImage, fallback) = (icon, typeIcon ?? "")
            } else {
                let what = icon.hasPrefix("data:") ? "a data: image" : "'\(SaidText.shown(icon, scalars: 40))', a LaMetric icon id,"
                notes.append("icon \(what) is not drawn: Nook has none of LaMetric's icons; the card shows "
                             + (notification.iconType == "none" ? "no icon" : "the \(notification.iconType) icon (icon_type)"))
            }
        }
        if systemImage == nil {
            systemImage = typeIcon
        }
        let priority = notification.cardPriority
        let tint: NookTint = notification.priority == "critical" ? .named(.red) : notification.priority == "warning" ? .named(.orange) : .accent
        var activity = NookActivity(coalescingKey: key(id), priority: priority, title: texts.first ?? "", subtitle: nil,
                                    systemImage: systemImage, tint: tint, progress: progress)
        activity.iconFallback = fallback
        (activity.sound, activity.soundRepeat) = (notification.sound, notification.soundRepeat)
        if texts.count > 1 { activity.subtitle = texts.dropFirst().joined(separator: "  ·  ") }
        if notification.cycles == 0 {
            activity.presentation = .blocker(timeout: nil)
        } else {
            // One cycle shows every frame once, each for a card's usual dwell.
            let seconds = min(3600, NookActivity.defaultDwell / .milliseconds(1) * Double(notification.frames.count * notification.cycles) / 1000)
            activity.dwell = .milliseconds(Int64(seconds * 1000))
        }
        if let lifetime = notification.lifetimeMs, lifetime > 0 {
            activity.expiresAfter = .milliseconds(Int64(min(lifetime, Double(7 * 24 * 3600 * 1000))))
        }
        return PublishedCard(activity: activity, module: module, notes: notes, senderFields: senderFields)
    }

    /// The chart as eight levels of block: the glass draws text, not LaMetric's bars.
    static func sparkline(_ values: [Double]) -> String {
        let low = values.min() ?? 0, high = values.max() ?? 0
        let blocks = Array("▁▂▃▄▅▆▇█")
        // Halved, the span of two finite values is finite (-1e308 to 1e308 would make a NaN, and a trap).
        let span = high / 2 - low / 2
        return String(values.map { value in
            span > 0 ? blocks[min(7, Int((value / 2 - low / 2) / span * 7.999))] : blocks[3]
        })
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// A card of nookd's `list` as LaMetric's queue shows a notification, or nil for a card
    /// LaMetric's API did not put up.
    static func listed(_ activity: JSONValue) -> JSONValue? {
        guard let key = activity["key"]?.text, let id = id(ofKey: key) else { return nil }
        var frames: [JSONValue] = [.object([("icon", activity["icon"] ?? .null), ("text", .string(activity["title"]?.text ?? ""))])]
        if let subtitle = activity["subtitle"]?.text { frames.append(.object([("text", .string(subtitle))])) }
        let priority = activity["priority"]?.text == "high" ? (activity["tint"]?.text == "red" ? "critical" : "warning") : "info"
        var members: [(String, JSONValue)] = [("id", .string(String(id))), ("type", .string("external")), ("priority", .string(priority)),
                                             ("icon_type", .string("none"))]
        if let expiry = activity["expiresAfter"]?.numberValue { members.append(("lifeTime", .number(expiry * 1000))) }
        members.append(("model", .object([("cycles", .number(activity["blocker"] == .bool(true) ? 0 : 1)), ("frames", .array(frames))])))
        return .object(members)
    }
}
