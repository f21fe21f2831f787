import NookActivities
import NookProtocol

/// A LaMetric notification (`POST /api/v2/device/notifications`) read as a card (M4): frames of
/// text and icon, `goalData` as the card's progress, `chartData` drawn as a sparkline in the
/// subtitle; `priority`, `icon_type`, `lifeTime` and `model.cycles` as the card's priority,
/// icon, expiry and dwell; `model.sound` as the card's sound (B4). What the glass will not show
/// or the speaker play (LaMetric icon ids, a sound's URL) is a note.
public struct LaMetricNotification: Sendable, Equatable {
    public enum Frame: Sendable, Equatable {
        case text(String, icon: String?)
        case goal(start: Double, current: Double, end: Double, unit: String?, icon: String?)
        case chart([Double])
    }

    public var frames: [Frame]
    /// `info`, `warning` or `critical`.
    public var priority: String
    /// `none`, `info` or `alert`.
    public var iconType: String
    /// How often the frames are shown; 0: until dismissed.
    public var cycles: Int
    /// `lifeTime` in milliseconds: how long the notification may wait to be shown.
    public var lifetimeMs: Double?
    /// The card's sound (a chime's name); nil: its priority's.
    public var sound: String?
    /// `model.sound.repeat`: a count of plays, or until engaged for LaMetric's 0 (B2); nil: once.
    public var soundRepeat: NookSoundRepeat?
    /// What will not be shown as sent.
    public var notes: [String] = []

    static let priorities = ["info", "warning", "critical"]

    /// The card's priority: a warning or a critical notification is high.
    var cardPriority: NookActivityPriority { priority == "info" ? .normal : .high }
    static let iconTypes = ["none", "info", "alert"]

    /// Reads a request body; a malformed one is refused naming the field.
    public static func decode(_ body: [UInt8]) -> Result<LaMetricNotification, HTTPAPIError> {
        do throws(HTTPAPIError) { return .success(try parse(body)) } catch { return .failure(error) }
    }

    static func invalid(_ field: String, _ message: String) -> HTTPAPIError {
        HTTPAPIError(status: 400, code: "invalid_field", field: field, message: message)
    }

    static func parse(_ body: [UInt8]) throws(HTTPAPIError) -> LaMetricNotification {
        let root: JSONValue
        do { root = try JSONValue.parse(body) } catch {
            throw HTTPAPIError(status: 400, code: "malformed_json", message: "the body must be a LaMetric notification in JSON: \(error)")
        }
        guard case .object(let members) = root else { throw invalid("body", "must be a JSON object, got \(root.typeName)") }
        guard case .object(let model)? = root["model"] else { throw invalid("model", "is required: an object with frames") }
        var notification = LaMetricNotification(frames: [], priority: "info", iconType: "none", cycles: 1)
        for (key, value) in members {
            switch key {
            case "model": break
            case "priority", "icon_type":
                let allowed = key == "priority" ? priorities : iconTypes
                guard let word = value.text, allowed.contains(word) else {
                    throw invalid(key, "must be one of \(allowed.joined(separator: ", ")), got \(value.text.map { "'\($0.prefix(40))'" } ?? value.typeName)")
                }
                if key == "priority" { notification.priority = word } else { notification.iconType = word }
            // LaMetric's documents spell it lifeTime; demetriek sends life_time.
            case "lifeTime", "lifetime", "life_time":
                guard let milliseconds = value.numberValue, milliseconds >= 0, milliseconds.isFinite else {
                    throw invalid(key, "must be milliseconds (a number, 0 or more), got \(value.typeName)")
                }
                notification.lifetimeMs = milliseconds
            default:
                notification.notes.append("'\(SaidText.shown(key, scalars: 40))' is not a field of LaMetric's notifications Nook reads: ignored")
            }
        }
        for (key, value) in model {
            switch key {
            case "frames": notification.frames = try frames(value)
            case "cycles":
                guard let cycles = value.numberValue, cycles >= 0, cycles <= 1000, cycles == cycles.rounded() else {
                    throw invalid("model.cycles", "must be a whole number from 0 to 1000, got \(value.numberValue.map { String($0) } ?? value.typeName)")
                }
                notification.cycles = Int(cycles)
            case "sound":
                // After the top level's keys: the priority is known.
                (notification.sound, notification.soundRepeat) = LaMetricSound.read(value, priority: notification.cardPriority,
                                                                                     notes: &notification.notes)
            default:
                notification.notes.append("model.\(SaidText.shown(key, scalars: 40)) is not a field Nook reads: ignored")
            }
        }
        guard !notification.frames.isEmpty else { throw invalid("model.frames", "must hold at least one frame") }
        return notification
    }

    private static func frames(_ value: JSONValue) throws(HTTPAPIError) -> [Frame] {
        guard case .array(let items) = value else { throw invalid("model.frames", "must be an array of frames, got \(value.typeName)") }
        guard items.count <= 20 else { throw invalid("model.frames", "holds \(items.count) frames; a card takes at most 20") }
        var frames: [Frame] = []
        for (index, item) in items.enumerated() {
            let field = "model.frames[\(index)]"
            guard case .object = item else { throw invalid(field, "must be an object, got \(item.typeName)") }
            let icon = try iconText(item["icon"], field: field + ".icon")
            if let goal = item["goalData"] {
                func number(_ name: String) throws(HTTPAPIError) -> Double {
                    guard let value = goal[name]?.numberValue, value.isFinite else { throw invalid("\(field).goalData.\(name)", "must be a number") }
                    return value
                }
                frames.append(.goal(start: try number("start"), current: try number("current"), end: try number("end"),
                                    unit: goal["unit"]?.text, icon: icon))
            } else if let chart = item["chartData"] {
                guard case .array(let points) = chart, !points.isEmpty, points.count <= 100 else {
                    throw invalid("\(field).chartData", "must be an array of 1 to 100 numbers")
                }
                var values: [Double] = []
                for point in points {
                    guard let number = point.numberValue, number.isFinite else { throw invalid("\(field).chartData", "must hold numbers only, got \(point.typeName)") }
                    values.append(number)
                }
                frames.append(.chart(values))
            } else if let text = item["text"] {
                guard let words = text.text else { throw invalid("\(field).text", "must be a string, got \(text.typeName)") }
                frames.append(.text(words, icon: icon))
            } else {
                throw invalid(field, "must have text, goalData or chartData")
            }
        }
        return frames
    }

    /// LaMetric's icons are ids (`i120`, `a7956`, `7956`) or a `data:` PNG; a number is an id too.
    private static func iconText(_ value: JSONValue?, field: String) throws(HTTPAPIError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text.isEmpty ? nil : text
        case .number(let number)? where number == number.rounded() && number >= 0 && number < 1e9: return String(Int(number))
        case let other?: throw invalid(field, "must be a LaMetric icon id or a data: URI, got \(other.typeName)")
        }
    }
}
