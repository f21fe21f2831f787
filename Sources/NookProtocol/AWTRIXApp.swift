import NookActivities

/// One AWTRIX 3 custom app (`POST /api/custom?name=APP`, MQTT `PREFIX/custom/APP`) as a Nook
/// app (A3), by the table in docs/apps.md. Both bridges read AWTRIX's bodies here, so an app
/// sent over HTTP and over MQTT is the same app, and both name the same fields as ignored.
public struct AWTRIXApp: Sendable, Equatable {
    public var app: NookApp
    /// AWTRIX's fields that Nook does not draw (`rainbow`, `effect`, …), as sent.
    public var ignored: [String]
    /// Fields AWTRIX does not document either (a typo is named, not silently dropped).
    public var unknown: [String]
    /// What else was left out of a field Nook took (an icon that is no symbol of the board's).
    public var notes: [String]

    /// What ``notes``, ``ignored`` and ``unknown`` say, one line each, for an answer or a log.
    public var remarks: [String] {
        var lines = notes
        if !ignored.isEmpty { lines.append("ignored (Nook does not draw them): \(ignored.joined(separator: ", "))") }
        if !unknown.isEmpty { lines.append("unknown fields (not AWTRIX's), ignored: \(unknown.map(Self.shown).joined(separator: ", "))") }
        return lines
    }

    /// A sender's text as a remark may quote it: control, format (bidirectional, zero-width)
    /// and line-breaking characters written as `\u{…}` (a remark is a line of a log and of an
    /// answer), and cut at 40 Unicode scalars, so its cost is bounded however many combining
    /// marks a character carries.
    static func shown(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(40) {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator: shown += "\\u{\(String(scalar.value, radix: 16))}"
            default: shown.unicodeScalars.append(scalar)
            }
        }
        return text.unicodeScalars.dropFirst(40).isEmpty ? shown : shown + "…"
    }

    /// What a body asks for: remove the app (an empty body, or `{}` as AWTRIX reads it), or
    /// set one app or several (an array makes APP0, APP1, … as AWTRIX does).
    public enum Body: Sendable, Equatable {
        case remove
        case set([AWTRIXApp])
    }

    /// Fields AWTRIX draws or plays that an app on Nook has no place for: named as ignored, but
    /// the sound fields, which are said not played (AWTRIX plays no sound with an app either).
    public static let ignoredFields: Set<String> = [
        "textCase", "topText", "textOffset", "center", "gradient", "blinkText", "fadeText", "background", "rainbow", "pushIcon",
        "repeat", "autoscale", "barBC", "progressC", "progressBC", "noScroll", "scrollSpeed", "effect", "effectSettings",
        "overlay", "save",
        // A notification's own, which AWTRIX ignores on a custom app too.
        "hold", "sound", "rtttl", "loopSound", "stack", "wakeup", "clients",
    ]
    /// Fields Nook takes (the rest of AWTRIX's are ``ignoredFields``).
    public static let takenFields: Set<String> = ["text", "icon", "color", "progress", "bar", "line", "draw", "duration", "pos", "lifetime", "lifetimeMode"]

    /// Reads a whole body for the app `name`. Every app of an array is checked before any is
    /// returned, so a bad one sets none. Errors name the field (`color`, or `[1].color` in an array).
    public static func body(name: String, _ bytes: [UInt8]) throws(ProtocolError) -> Body {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { return .remove }
        let (value, remarks, elementRemarks) = try AWTRIXFields.parseByElement(bytes, kind: "an AWTRIX custom app is a JSON object (or an array of them)")
        switch value {
        case .object(let members) where members.isEmpty: return .remove
        case .object:
            var one = try app(name: name, value)
            one.notes += remarks
            return .set([one])
        case .array(let items):
            guard !items.isEmpty else {
                throw ProtocolError(.invalid, field: "body", "an empty array sets no app; an empty body (or {}) removes \(name)")
            }
            // More than nookd keeps could never be set whole (`app-set-all` takes at most as many).
            guard items.count <= NookApp.Limits.count else {
                throw ProtocolError(.invalid, field: "body", "an array sets at most \(NookApp.Limits.count) apps (all nookd keeps), got \(items.count); none was set")
            }
            var apps: [AWTRIXApp] = []
            for (index, item) in items.enumerated() {
                guard case .object = item else {
                    throw ProtocolError(.wrongType, field: "[\(index)]", "each app of an array must be a JSON object, got \(item.typeName)")
                }
                var one = try app(name: name + String(index), item, path: "[\(index)].")
                one.notes += elementRemarks[index] ?? []
                apps.append(one)
            }
            return .set(apps)
        default:
            throw ProtocolError(.wrongType, field: "body", "must be a JSON object (or an array of them), got \(value.typeName)")
        }
    }

    /// One app object. `path` prefixes the fields its errors name (`[1].` in an array).
    public static func app(name: String, _ value: JSONValue, path: String = "") throws(ProtocolError) -> AWTRIXApp {
        if let problem = NookApp.nameProblem(name) { throw ProtocolError(.invalid, field: "name", "the app's name \(problem)") }
        guard case .object(let members) = value else {
            throw ProtocolError(.wrongType, field: path.isEmpty ? "body" : String(path.dropLast()), "must be a JSON object, got \(value.typeName)")
        }
        func field(_ key: String) -> String { path + key }
        func given(_ key: String) -> JSONValue? {
            guard let found = value[key], found != .null else { return nil }
            return found
        }
        var notes: [String] = []
        let content: NookApp.Content
        switch given("text") {
        case .string(let text)?:
            // Blank text is none: an app may be an icon, a bar, a chart or a drawing alone.
            content = .text(text.trimmingWhitespace.isEmpty ? "" : text)
            if text.contains("{{") && text.contains("}}") { notes.append("text: placeholders {{topic}} are shown as written, not filled in") }
        case .array(let items)? where items.isEmpty:
            content = .text("")
        case .array(let items)?:
            var fragments: [NookApp.Fragment] = []
            for (index, item) in items.enumerated() {
                let at = field("text[\(index)]")
                guard case .object = item else { throw ProtocolError(.wrongType, field: at, "must be a fragment {\"t\": \"…\", \"c\": \"FF0000\"}, got \(item.typeName)") }
                guard case .string(let text)? = item["t"] else {
                    throw ProtocolError(item["t"] == nil ? .missingField : .wrongType, field: at + ".t", "each fragment needs its text as a string")
                }
                var fragment = NookApp.Fragment(text)
                if let colour = item["c"], colour != .null { fragment.tint = try AWTRIXFields.tint(colour, field: at + ".c") }
                fragments.append(fragment)
            }
            content = .fragments(fragments)
        case nil:
            content = .text("")
        case let other?:
            throw ProtocolError(.wrongType, field: field("text"), "must be a string or an array of {\"t\", \"c\"} fragments, got \(other.typeName)")
        }
        var app = NookApp(name: name, content: content)
        switch try AWTRIXFields.icon(given("icon"), field: field("icon")) {
        case let icon? where icon.trimmingWhitespace.isEmpty:
            // AWTRIX's senders send an empty icon meaning none.
            break
        case let icon?:
            // AWTRIX's icons are LaMetric ids, its own files and Base64 JPEGs; a symbol name
            // of the board's (R3) is drawn as one, and no sender over the network names a file.
            // A name or id looked up as a file is nookd's to find, or to say it has none (M3).
            if isSymbolName(icon) { app.icon = icon } else if isIconLookup(icon) { (app.icon, app.iconFallback) = (icon, "") } else {
                notes.append("icon '\(Self.shown(icon))' is not one of the board's symbols (nookctl icons); the app has none")
            }
        case nil: break
        }
        if let colour = given("color") { app.tint = try AWTRIXFields.tint(colour, field: field("color")) }
        if let progress = try AWTRIXFields.number(given("progress"), field: field("progress")) {
            // AWTRIX's default, -1, draws no bar.
            guard progress == -1 || (0...100).contains(progress) else {
                throw ProtocolError(.invalid, field: field("progress"), "must be from 0 to 100 (or -1 for no bar), got \(progress)")
            }
            if progress >= 0 { app.progress = progress / 100 }
        }
        let bar = try chart(given("bar"), field: field("bar"))
        let line = try chart(given("line"), field: field("line"))
        if let bar { app.chart = NookApp.Chart(.bar, bar) }
        if let line {
            if bar != nil { notes.append("line: ignored, the app draws its bar chart (one chart at a time)") } else { app.chart = NookApp.Chart(.line, line) }
        }
        if let drawing = given("draw") { app.drawing = try AWTRIXDrawing.parse(drawing, field: field("draw"), notes: &notes) }
        // AWTRIX's 0 is its default: the app's turn as configured.
        if let seconds = try AWTRIXFields.number(given("duration"), field: field("duration")), seconds != 0 {
            guard seconds >= NookApp.Limits.shortestDuration.nookSeconds, seconds <= NookApp.Limits.longestDuration.nookSeconds,
                  let duration = Duration.nookSeconds(seconds) else {
                throw ProtocolError(.invalid, field: field("duration"), "must be seconds from \(Int(NookApp.Limits.shortestDuration.nookSeconds)) "
                                    + "to \(Int(NookApp.Limits.longestDuration.nookSeconds)), got \(seconds)")
            }
            app.duration = duration
        }
        if let position = try AWTRIXFields.number(given("pos"), field: field("pos")) {
            guard let whole = Int(exactly: position), NookApp.Limits.positions.contains(whole) else {
                throw ProtocolError(.invalid, field: field("pos"),
                                    "must be a whole number from \(NookApp.Limits.positions.lowerBound) to \(NookApp.Limits.positions.upperBound), got \(position)")
            }
            app.position = whole
        }
        if let seconds = try AWTRIXFields.number(given("lifetime"), field: field("lifetime")) {
            // AWTRIX's default, 0, is no lifetime.
            guard seconds >= 0, seconds <= NookApp.Limits.longestLifetime.nookSeconds, let lifetime = Duration.nookSeconds(seconds) else {
                throw ProtocolError(.invalid, field: field("lifetime"),
                                    "must be seconds from 0 (none) to \(Int(NookApp.Limits.longestLifetime.nookSeconds)), got \(seconds)")
            }
            if seconds > 0 { app.lifetime = lifetime }
        }
        if let mode = try AWTRIXFields.number(given("lifetimeMode"), field: field("lifetimeMode")) {
            switch mode {
            case 0: app.lifetimeMode = .remove
            case 1: app.lifetimeMode = .stale
            default: throw ProtocolError(.invalid, field: field("lifetimeMode"), "must be 0 (remove the app) or 1 (keep it, marked stale), got \(mode)")
            }
        }
        let keys = members.map(\.0)
        if let note = AWTRIXSound.customAppNote(keys) { notes.append(note) }
        let read = AWTRIXApp(app: app, ignored: keys.filter { ignoredFields.contains($0) && !AWTRIXSound.fields.contains($0) },
                             unknown: keys.filter { !ignoredFields.contains($0) && !takenFields.contains($0) }, notes: notes)
        do { try app.validate() } catch {
            if error.field == "text", app.isWordless {
                throw AWTRIXFields.nothingToShow(field: field("text"), leftOut: read.remarks, hint: " (an empty body removes the app)")
            }
            throw ProtocolError(.invalid, field: field(awtrixField(error.field, app: app)).replacingDrawField(with: field("draw")), error.problem)
        }
        return read
    }

    /// AWTRIX's colours (``AWTRIXFields/tint(_:field:)``).
    public static func tint(_ value: JSONValue, field: String) throws(ProtocolError) -> NookTint {
        try AWTRIXFields.tint(value, field: field)
    }

    /// A name of the board's symbol table: lower-case letters, digits and dots, as
    /// `cloud`; never a path or a `.png` file.
    /// Whether nookd may look `name` up as an icon file (`NAME.png`, `NAME.gif`, M3): a symbol-like
    /// name or a LaMetric id, never a path or a file name, which a sender over the network may not name.
    public static func isIconLookup(_ name: String) -> Bool {
        (isSymbolName(name) && !name.hasSuffix(".gif")) || (!name.isEmpty && name.utf8.count <= 64 && name.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 })
    }

    public static func isSymbolName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.first?.isLetter == true && !name.hasSuffix(".png")
            && name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E }
    }

    /// A `bar` or `line`: up to 16 numbers; an empty one is no chart.
    static func chart(_ value: JSONValue?, field: String) throws(ProtocolError) -> [Double]? {
        guard let value else { return nil }
        guard case .array(let items) = value else { throw ProtocolError(.wrongType, field: field, "must be an array of numbers, got \(value.typeName)") }
        var numbers: [Double] = []
        for item in items {
            // Numbers, or strings holding them as ArduinoJson reads them; a null or a word is none.
            guard item != .null, let number = try? AWTRIXFields.number(item, field: field) else {
                throw ProtocolError(.wrongType, field: field, "must be an array of numbers, got \(item.typeName) in it")
            }
            numbers.append(number)
        }
        guard numbers.count <= NookApp.Limits.chartValues else {
            throw ProtocolError(.invalid, field: field, "must have at most \(NookApp.Limits.chartValues) values, got \(numbers.count)")
        }
        return numbers.isEmpty ? nil : numbers
    }

    /// The AWTRIX field a Nook field came from, for an error the sender reads.
    private static func awtrixField(_ field: String, app: NookApp) -> String {
        switch field {
        case "tint": "color"
        case "chart": app.chart?.style == .line ? "line" : "bar"
        default: field
        }
    }
}
