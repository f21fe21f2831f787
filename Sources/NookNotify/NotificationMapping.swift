import NookActivities

/// One notification as an activity (SPEC E2): summary → title, body → subtitle without its
/// markup, icon names and categories → Nook icons, urgency → priority, critical and
/// `expire_timeout` 0 → a blocker that never expires by itself, `expire_timeout` > 0 → the
/// dwell, the `value` hint → progress, `transient` → not kept in the history, the sound hints
/// → its sound (B4). Pure: the bridge supplies the id and coalescing key.
public enum NotificationMapping {
    public struct Result: Sendable, Equatable {
        public var activity: NookActivity
        /// What was cut or ignored, one log line each.
        public var notes: [String]
    }

    /// - Parameters:
    ///   - key: the coalescing key that makes a replacement take its predecessor's place.
    ///   - allowPaths: whether an image path is passed to nookd, which reads it as its own
    ///     user: only for senders of the bridge's own uid (another user's path falls back to
    ///     the category or the urgency's icon).
    public static func activity(for call: NotifyCall, id: NookActivityID, key: String?, allowPaths: Bool) -> Result {
        var notes: [String] = []
        let summary = Markup.collapsingWhitespace(call.summary)
        var title = summary.isEmpty ? Markup.collapsingWhitespace(call.appName) : summary
        if title.isEmpty { title = "Notification" }
        title = clamped(title, to: NookActivity.Limits.title, what: "summary", notes: &notes)
        var subtitle: String? = Markup.plainText(call.body)
        if subtitle?.isEmpty == true { subtitle = nil }
        subtitle = subtitle.map { clamped($0, to: NookActivity.Limits.subtitle, what: "body", notes: &notes) }

        if let note = call.urgencyNote { notes.append(note) }
        let critical = call.urgency == 2
        let priority: NookActivityPriority = critical ? .high : call.urgency <= 0 ? .low : .normal
        let presentation: NookActivity.Presentation
        var dwell = NookActivity.defaultDwell
        if critical || call.expireTimeout == 0 {
            // The spec: critical notifications do not expire by themselves; 0 means never.
            presentation = .blocker(timeout: nil)
        } else {
            presentation = .timed
            if call.expireTimeout > 0 {
                dwell = .milliseconds(Int64(call.expireTimeout))
                if dwell > NookActivity.Limits.longestDwell {
                    notes.append("expire_timeout \(call.expireTimeout) ms is longer than a card may stay (\(NookActivity.Limits.longestDwell)); using that")
                    dwell = NookActivity.Limits.longestDwell
                }
            }
        }
        var progress: Double?
        switch call.hints["value"] {
        case .integer(let value)?: progress = Double(min(max(value, 0), 100)) / 100
        case .double(let value)? where value.isFinite: progress = min(max(value, 0), 100) / 100
        case nil: break
        case let other?: notes.append("hint value ignored: not a number (\(other))")
        }
        let (icon, lookedUp) = self.icon(for: call, allowPaths: allowPaths, critical: critical, notes: &notes)
        let tint: NookTint = critical ? .named(.red) : icon.tint ?? .accent
        // The spec's `transient` hint (notify-send --transient): shown, but kept out of any
        // persistence, which for Nook is its history (U4).
        let transient = flag("transient", in: call, notes: &notes) ?? false
        var activity = NookActivity(id: id, coalescingKey: key, priority: priority, title: title, subtitle: subtitle,
                                    systemImage: lookedUp ?? icon.symbol, tint: tint, dwell: dwell, presentation: presentation, progress: progress,
                                    isTransient: transient, hasAction: call.hasDefaultAction)
        if lookedUp != nil { activity.iconFallback = icon.symbol }
        activity.sound = NotificationSound.sound(for: call, priority: priority, notes: &notes)
        return Result(activity: activity, notes: notes)
    }

    /// The spec's order: `image-path` (and its old spelling `image_path`), then `app_icon`, then
    /// the category; a name not in the table falls through to the next; last the urgency's icon.
    /// Each icon the sender named that is passed over is a note (R3: the sender's icon is not
    /// dropped unsaid), naming what is drawn instead. The first name not in the table that may
    /// be an icon file's is `lookedUp`: nookd draws `NAME.png` or `NAME.gif` from an icon
    /// directory, or says it shows `icon` instead (M3).
    static func icon(for call: NotifyCall, allowPaths: Bool, critical: Bool, notes: inout [String])
        -> (icon: FreedesktopIcons.Icon, lookedUp: String?) {
        var candidates: [(what: String, value: String)] = []
        for hint in ["image-path", "image_path"] {
            if case .string(let value)? = call.hints[hint] { candidates.append(("hint \(hint)", value)) }
        }
        candidates.append(("app_icon", call.appIcon))
        var passedOver: [String] = []
        var chosen: FreedesktopIcons.Icon?
        var lookedUp: String?
        for candidate in candidates where !candidate.value.isEmpty {
            if let path = pngPath(candidate.value) {
                if allowPaths { chosen = FreedesktopIcons.Icon(symbol: path, tint: nil); break }
                passedOver.append("\(candidate.what) '\(clipped(candidate.value))' is an image of another user's, which nookd does not read")
                continue
            }
            if let icon = FreedesktopIcons.lookup(candidate.value) { chosen = icon; break }
            if candidate.value.hasPrefix("/") || candidate.value.hasPrefix("file://") {
                passedOver.append("\(candidate.what) '\(clipped(candidate.value))' is an image nookd does not read (it draws PNG files)")
                continue
            }
            if lookedUp == nil, NookIconNames.mayNameIconFile(candidate.value) {
                lookedUp = candidate.value
                continue
            }
            passedOver.append("\(candidate.what) '\(clipped(candidate.value))' is not an icon name Nook maps")
        }
        if chosen == nil, case .string(let category)? = call.hints["category"], let icon = FreedesktopIcons.category(category) { chosen = icon }
        let icon = chosen ?? (critical ? FreedesktopIcons.Icon(symbol: "exclamationmark.triangle", tint: .named(.red)) : FreedesktopIcons.Icon(symbol: "bell", tint: nil))
        let instead = icon.symbol == "bell" ? "the bell" : "'\(icon.symbol)'"
        for note in passedOver { notes.append("\(note); using \(instead)") }
        // A chosen path is drawn as it is: a fallback is a built-in icon.
        guard NookIconNames.isKnown(icon.symbol) else { return (icon, nil) }
        return (icon, lookedUp)
    }

    /// A flag hint as senders send it: a boolean, or a byte (some clients); another type is a
    /// note. nil: not given.
    static func flag(_ name: String, in call: NotifyCall, notes: inout [String]) -> Bool? {
        switch call.hints[name] {
        case .boolean(let value)?: return value
        case .integer(let value)?: return value != 0
        case nil: return nil
        case let other?:
            notes.append("hint \(name) ignored: not a boolean (\(other))")
            return nil
        }
    }

    /// A sender's value as a note quotes it: its first 64 characters on one line (a control
    /// character as `\u{…}`, so a sender cannot start a line of its own in the log).
    static func clipped(_ value: String) -> String {
        let head = value.count > 64 ? String(value.prefix(64)) + "…" : value
        return head.unicodeScalars.map { scalar in
            scalar.properties.generalCategory == .control ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }.joined()
    }

    /// An absolute path (or `file://` URI) of a PNG, which nookd draws (R3); other images are
    /// formats nookd does not read.
    static func pngPath(_ value: String) -> String? {
        localPath(value).flatMap { $0.lowercased().hasSuffix(".png") ? $0 : nil }
    }

    /// An absolute path, or a `file://` URI's path; nil for anything else, and for a URI with a
    /// `%` escape (not decoded: the path nookd would look at is not the one the sender meant).
    static func localPath(_ value: String) -> String? {
        var path = Substring(value)
        if path.hasPrefix("file://") { path = path.dropFirst("file://".count) }
        guard path.hasPrefix("/"), !path.contains("%") else { return nil }
        return String(path)
    }

    static func clamped(_ text: String, to limit: NookTextLimit, what: String, notes: inout [String]) -> String {
        guard let problem = limit.problem(with: text) else { return text }
        notes.append("\(what) \(problem): cut to fit")
        return limit.clamped(text)
    }
}
