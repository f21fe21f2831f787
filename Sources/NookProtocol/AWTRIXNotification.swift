import NookActivities

/// One notification as an AWTRIX sender sends it, to `POST /api/notify` (H2) or the MQTT topic
/// `PREFIX/notify`: `text` (a string, or coloured fragments `[{"t": "…", "c": "FF0000"}]`),
/// `color`, `icon`, `duration`, `hold`, `progress`, `sound`, `rtttl` and `loopSound` (B4); the drawing fields
/// of a pixel clock are left out, noted. And its card, by the table in docs/publishing.md.
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
    /// The card's sound (a chime's name or an RTTTL string Nook plays); nil: its priority's.
    public var sound: String?
    /// `loopSound`: until engaged (B2); nil: once.
    public var soundRepeat: NookSoundRepeat?
    public var notes: [String]

    public init(text: String, color: NookTint? = nil, icon: String? = nil, duration: Double? = nil, hold: Bool = false,
                progress: Double? = nil, sound: String? = nil, soundRepeat: NookSoundRepeat? = nil, notes: [String] = []) {
        (self.text, self.color, self.icon, self.duration, self.hold, self.progress, self.notes) = (text, color, icon, duration, hold, progress, notes)
        (self.sound, self.soundRepeat) = (sound, soundRepeat)
    }

    /// Fields AWTRIX draws that a card has no place for (its sound fields are the card's, B4).
    public static let ignoredFields = ["textCase", "topText", "textOffset", "center", "gradient", "blinkText", "fadeText", "background",
                                       "rainbow", "pushIcon", "repeat", "bar", "line", "autoscale",
                                       "progressC", "progressBC", "draw", "stack", "wakeup", "noScroll", "clients", "scrollSpeed",
                                       "effect", "effectSettings", "overlay", "lifetime", "lifetimeMode", "pos", "save"]

    /// Fields a card takes (the rest of AWTRIX's are ``ignoredFields``).
    public static let takenFields: Set<String> = ["text", "color", "icon", "duration", "hold", "progress", "sound", "rtttl", "loopSound"]

    /// The notification in `body`, or why not, naming the field: `badJSON` (not JSON),
    /// `wrongType` (a field of the wrong JSON type), `missingField` (no words to show), `invalid`
    /// (a value out of its range, a colour that is none).
    public static func parse(_ body: [UInt8]) throws(ProtocolError) -> AWTRIXNotification {
        let (value, remarks) = try AWTRIXFields.parse(body, kind: "an AWTRIX notification is a JSON object")
        guard case .object(let members) = value else {
            throw ProtocolError(.wrongType, field: "body", "must be a JSON object, got \(value.typeName)")
        }
        var notification = AWTRIXNotification(text: "")
        var fragmentTint: NookTint?
        switch value["text"] {
        case .string(let text)?: notification.text = text
        case .array(let fragments)?:
            for (index, fragment) in fragments.enumerated() {
                guard let piece = fragment["t"]?.text else {
                    throw ProtocolError(.wrongType, field: "text[\(index)].t", "each fragment needs its text as a string")
                }
                notification.text += piece
                if fragmentTint == nil, let colour = fragment["c"] { fragmentTint = try tint(colour, field: "text[\(index)].c") }
            }
        case nil, .null?: break
        case let other?: throw ProtocolError(.wrongType, field: "text", "must be a string or an array of {\"t\", \"c\"} fragments, got \(other.typeName)")
        }
        notification.notes += remarks
        // A drawing is read as a custom app's is, whether or not it titles the card: its bounds,
        // its errors naming the command by index, its unknown commands named.
        var drawing: NookDrawing?
        if let given = value["draw"], given != .null { drawing = try AWTRIXDrawing.parse(given, field: "draw", notes: &notification.notes) }
        var wordless: Set<String> = []
        if notification.text.allSatisfy(\.isWhitespace) {
            guard let used = try Self.wordlessTitle(value, drawing: drawing, into: &notification) else {
                // Nothing to show: say what was sent and left out, which is why.
                let read: Set<String> = ["bar", "line", "draw"]
                let unplayed = AWTRIXSound.fields.filter { value[$0] != nil }
                let sound = unplayed.isEmpty ? [] : ["\(unplayed.joined(separator: ", ")) not played: a sound plays with its card, and there is none"]
                throw AWTRIXFields.nothingToShow(field: "text", leftOut: notification.notes + leftOut(members.map(\.0).filter { !read.contains($0) }) + sound)
            }
            wordless = used
        }
        if let colour = value["color"], colour != .null { notification.color = try tint(colour, field: "color") }
        if notification.color == nil { notification.color = fragmentTint }
        // AWTRIX's senders send an empty icon meaning none.
        if let name = try AWTRIXFields.icon(value["icon"], field: "icon"), !name.trimmingWhitespace.isEmpty { notification.icon = name }
        // AWTRIX's 0 is its default: the card's own dwell.
        if let seconds = try AWTRIXFields.number(value["duration"], field: "duration"), seconds != 0 {
            // Above 0 once read to the nanosecond a card's time is kept in: 1e-300 is 0.
            guard seconds > 0, let kept = Duration.nookSeconds(min(seconds, 1e9)), kept > .zero else {
                throw ProtocolError(.invalid, field: "duration", "must be a number of seconds above 0, got \(seconds)")
            }
            notification.duration = seconds
        }
        switch value["hold"] {
        case .bool(let flag)?: notification.hold = flag
        case nil, .null?: break
        case let other?: throw ProtocolError(.wrongType, field: "hold", "must be true or false, got \(other.typeName)")
        }
        if let percent = try AWTRIXFields.number(value["progress"], field: "progress") {
            // AWTRIX draws no bar for -1, its default; its documented range is 0 to 100.
            guard percent == -1 || (percent >= 0 && percent <= 100) else {
                throw ProtocolError(.invalid, field: "progress", "must be from 0 to 100 (or -1 for no bar), got \(percent)")
            }
            if percent >= 0 { notification.progress = percent }
        }
        (notification.sound, notification.soundRepeat) = AWTRIXSound.read(value, notes: &notification.notes)
        notification.notes += leftOut(members.map(\.0).filter { !wordless.contains($0) })
        return notification
    }

    /// What of `keys` a card does not take: AWTRIX's fields it has no place for, and fields that
    /// are not AWTRIX's (a typo is named, not silently dropped, as a custom app's is).
    private static func leftOut(_ keys: [String]) -> [String] {
        let ignored = keys.filter(ignoredFields.contains)
        let unknown = keys.filter { !ignoredFields.contains($0) && !takenFields.contains($0) }
        return (ignored.isEmpty ? [] : ["ignored (a card has no place for them): \(ignored.joined(separator: ", "))"])
            + (unknown.isEmpty ? [] : ["unknown fields (not AWTRIX's), ignored: \(unknown.map(AWTRIXApp.shown).joined(separator: ", "))"])
    }

    /// A title for a notification without words, from what it shows instead (an AWTRIX
    /// notification may be a chart, a bar, an icon or a drawing alone): the chart in block
    /// characters, the progress as a percentage, the icon's name, or a drawing named as one.
    /// Returns the fields the title was made of (not ignored, then); nil: nothing to show.
    private static func wordlessTitle(_ value: JSONValue, drawing: NookDrawing?,
                                      into notification: inout AWTRIXNotification) throws(ProtocolError) -> Set<String>? {
        for key in ["bar", "line"] {
            // Read as a custom app's chart is: at most as many values, each a number, or refused.
            let given = value[key].flatMap { $0 == .null ? nil : $0 }
            guard let numbers = try AWTRIXApp.chart(given, field: key) else { continue }
            notification.text = NookApp.Chart(key == "bar" ? .bar : .line, numbers).characters
            return [key]
        }
        if let percent = try AWTRIXFields.number(value["progress"], field: "progress"), percent >= 0, percent <= 100 {
            notification.text = (percent == percent.rounded() ? String(Int(percent)) : String(percent)) + " %"
            return []
        }
        if let icon = try? AWTRIXFields.icon(value["icon"], field: "icon"), !icon.trimmingWhitespace.isEmpty {
            notification.text = AWTRIXApp.shown(icon)
            return []
        }
        if drawing != nil {
            notification.text = "AWTRIX drawing"
            notification.notes.append("draw: a notification's drawing is not drawn on a card (a custom app's is); its title says it was sent")
            return ["draw"]
        }
        return nil
    }

    /// AWTRIX colours, read as its custom apps' are (``AWTRIXApp/tint(_:field:)``), and a
    /// palette name of the board's too.
    static func tint(_ value: JSONValue, field: String) throws(ProtocolError) -> NookTint {
        do { return try AWTRIXApp.tint(value, field: field) } catch {
            if case .string(let text) = value, let tint = NookTint(parsing: text) { return tint }
            throw error
        }
    }

    /// The card: the text, whitespace collapsed, as its title (cut to fit, noted), `duration`
    /// as its dwell (an hour at most), `hold` as a blocker, the icon when it names one of the
    /// board's symbols (AWTRIX's own icons are files and LaMetric numbers: a bell, noted).
    /// `notes` gets what was changed on the way, after the notification's own.
    public func activity(id: NookActivityID, notes: inout [String]) -> NookActivity {
        notes += self.notes
        var title = text.whitespaceCollapsed
        if let problem = NookActivity.Limits.title.problem(with: title) {
            notes.append("title \(problem): cut to fit")
            title = NookActivity.Limits.title.clamped(title)
        }
        var dwell = NookActivity.defaultDwell
        if let seconds = duration {
            dwell = Duration.nookSeconds(min(seconds, NookActivity.Limits.longestDwell.nookSeconds)) ?? dwell
            if seconds > NookActivity.Limits.longestDwell.nookSeconds { notes.append("duration \(seconds) s is longer than a card may stay; using an hour") }
        }
        var symbol = "bell"
        var fallback: String?
        if let icon {
            // A name the board lacks is the bell too, as for a number or a file (never the
            // generic glyph under the sender's name), with the nearest name if it looks misspelt.
            if AWTRIXApp.isSymbolName(icon), NookIconNames.isKnown(icon) {
                symbol = icon
            } else if AWTRIXApp.isIconLookup(icon) {
                // nookd draws the file it finds for the name or id, or says it shows the bell (M3).
                (symbol, fallback) = (icon, "bell")
            } else {
                let suggestion = AWTRIXApp.isSymbolName(icon) ? NookIconNames.nearest(to: icon).map { " (did you mean '\($0)'?)" } ?? "" : ""
                notes.append("icon '\(AWTRIXApp.shown(icon))' is not one of the board's symbols\(suggestion); using bell")
            }
        }
        var activity = NookActivity(id: id, title: title, systemImage: symbol, tint: color ?? .accent, dwell: dwell,
                                    presentation: hold ? .blocker(timeout: nil) : .timed, progress: progress.map { $0 / 100 })
        activity.iconFallback = fallback
        (activity.sound, activity.soundRepeat) = (sound, soundRepeat)
        return activity
    }

    /// The notification's field each field of its card comes from.
    public static let senderFields = ["title": "text", "tint": "color", "dwell": "duration", "progress": "progress", "icon": "icon",
                                      "blocker": "hold", "timeout": "hold"]
}
