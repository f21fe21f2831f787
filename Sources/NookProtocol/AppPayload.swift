import NookActivities

/// The wire form of an app (A1) and its conversion to and from ``NookApp``.
///
/// Fields: `name` (required), `text` (a string, or a list of fragments `{"text": …, "tint": …}`;
/// required unless an icon, progress, chart or drawing shows instead), `icon`, `tint`, `progress`
/// (0 to 1), `iconFallback` (a built-in icon drawn when nookd finds `icon` neither built in nor as
/// a file, M3), `chart` (1 to 16 numbers), `chartStyle` (`bar`, the default, or `line`), `draw`
/// (AWTRIX's drawing commands, ``AWTRIXDrawing``), `duration`, `lifetime` (seconds), `pos`
/// (a whole number), `lifetimeMode` (`remove`, the default, or `stale`) and `action` (bool).
public enum AppPayload {
    public static let fields: Set<String> = ["name", "text", "icon", "iconFallback", "tint", "progress", "chart", "chartStyle", "draw", "duration", "pos",
                                             "lifetime", "lifetimeMode", "action"]

    /// Decodes and validates, naming `app.FIELD` in any error.
    public static func decode(_ value: JSONValue, path: String = "app") throws(ProtocolError) -> NookApp {
        let reader = try FieldReader(value, path: path)
        try reader.rejectUnknown(fields)
        let name = try reader.requiredString("name")
        let content: NookApp.Content
        switch reader.value("text") {
        // Checked with the rest by validate(): an icon, progress, chart or drawing may show instead.
        case nil: content = .text("")
        case .string(let text)?: content = .text(text)
        case .array(let items)?:
            var fragments: [NookApp.Fragment] = []
            for (index, item) in items.enumerated() {
                let fragment = try FieldReader(item, path: reader.name("text") + "[\(index)]")
                try fragment.rejectUnknown(["text", "tint"])
                var piece = NookApp.Fragment(try fragment.requiredString("text"))
                if let tint = try fragment.string("tint") { piece.tint = try parsedTint(tint, field: fragment.name("tint")) }
                fragments.append(piece)
            }
            content = .fragments(fragments)
        case let other?: throw ProtocolError(.wrongType, field: reader.name("text"), "must be a string or a list of fragments, got \(other.typeName)")
        }
        var app = NookApp(name: name, content: content)
        app.icon = try reader.string("icon")
        app.iconFallback = try reader.string("iconFallback")
        if let tint = try reader.string("tint") { app.tint = try parsedTint(tint, field: reader.name("tint")) }
        app.progress = try reader.number("progress")
        if let values = reader.value("chart") {
            guard case .array(let items) = values else {
                throw ProtocolError(.wrongType, field: reader.name("chart"), "must be a list of numbers, got \(values.typeName)")
            }
            var numbers: [Double] = []
            for item in items {
                guard let number = item.numberValue else {
                    throw ProtocolError(.wrongType, field: reader.name("chart"), "must be a list of numbers, got \(item.typeName) in it")
                }
                numbers.append(number)
            }
            app.chart = NookApp.Chart(try reader.oneOf("chartStyle", NookApp.Chart.Style.self) ?? .bar, numbers)
        } else if reader.value("chartStyle") != nil {
            throw ProtocolError(.invalid, field: reader.name("chartStyle"), "applies only with a chart")
        }
        if let drawing = reader.value("draw") {
            var notes: [String] = []
            app.drawing = try AWTRIXDrawing.parse(drawing, field: reader.name("draw"), notes: &notes)
            if let note = notes.first { throw ProtocolError(.invalid, field: reader.name("draw"), note) }
        }
        app.duration = try seconds(reader, "duration")
        app.lifetime = try seconds(reader, "lifetime")
        if let position = try reader.number("pos") {
            guard let whole = Int(exactly: position), NookApp.Limits.positions.contains(whole) else {
                throw ProtocolError(.invalid, field: reader.name("pos"),
                                    "must be a whole number from \(NookApp.Limits.positions.lowerBound) to \(NookApp.Limits.positions.upperBound), got \(position)")
            }
            app.position = whole
        }
        app.lifetimeMode = try reader.oneOf("lifetimeMode", NookApp.LifetimeMode.self) ?? .remove
        app.hasAction = try reader.bool("action") ?? false
        do {
            try app.validate()
        } catch {
            if error.field == "text", app.isWordless {
                throw ProtocolError(.missingField, field: reader.name("text"), "is required (a string, or a list of {\"text\", \"tint\"} fragments) "
                                    + "when there is no icon, progress, chart or drawing")
            }
            throw ProtocolError(.invalid, field: reader.name(error.field), error.problem)
        }
        return app
    }

    public static func encode(_ app: NookApp) -> JSONValue {
        var members: [(String, JSONValue)] = [("name", .string(app.name))]
        switch app.content {
        case .text(let text) where text.isEmpty: break
        case .text(let text): members.append(("text", .string(text)))
        case .fragments(let fragments):
            members.append(("text", .array(fragments.map { fragment in
                .object([("text", .string(fragment.text))] + (fragment.tint.map { [("tint", .string($0.description))] } ?? []))
            })))
        }
        if let icon = app.icon { members.append(("icon", .string(icon))) }
        if let fallback = app.iconFallback { members.append(("iconFallback", .string(fallback))) }
        if app.tint != .accent { members.append(("tint", .string(app.tint.description))) }
        if let progress = app.progress { members.append(("progress", .number(progress))) }
        if let chart = app.chart {
            members.append(("chart", .array(chart.values.map(JSONValue.number))))
            if chart.style != .bar { members.append(("chartStyle", .string(chart.style.rawValue))) }
        }
        if let drawing = app.drawing { members.append(("draw", AWTRIXDrawing.encode(drawing))) }
        if let duration = app.duration { members.append(("duration", .number(duration.nookSeconds))) }
        if let position = app.position { members.append(("pos", .number(Double(position)))) }
        if let lifetime = app.lifetime { members.append(("lifetime", .number(lifetime.nookSeconds))) }
        if app.lifetimeMode != .remove { members.append(("lifetimeMode", .string(app.lifetimeMode.rawValue))) }
        if app.hasAction { members.append(("action", .bool(true))) }
        return .object(members)
    }

    private static func parsedTint(_ text: String, field: String) throws(ProtocolError) -> NookTint {
        guard let tint = NookTint(parsing: text) else { throw ProtocolError(.invalid, field: field, "must be \(NookTint.accepted); got '\(text)'") }
        return tint
    }

    private static func seconds(_ reader: FieldReader, _ key: String) throws(ProtocolError) -> Duration? {
        guard let number = try reader.number(key) else { return nil }
        guard let duration = Duration.nookSeconds(number) else {
            throw ProtocolError(.invalid, field: reader.name(key), "must be a finite number of seconds, got \(number)")
        }
        return duration
    }
}

/// One app as nookd keeps it: the app, when it was last set, whether its lifetime has made it
/// stale, and whether it is on the glass now.
public struct AppState: Hashable, Sendable {
    public var app: NookApp
    /// Wall-clock seconds of the last set.
    public var setAt: Double
    public var stale: Bool
    public var showing: Bool

    public init(app: NookApp, setAt: Double, stale: Bool = false, showing: Bool = false) {
        (self.app, self.setAt, self.stale, self.showing) = (app, setAt, stale, showing)
    }

    var json: JSONValue {
        var members: [(String, JSONValue)] = [("app", AppPayload.encode(app)), ("setAt", .number(setAt))]
        if stale { members.append(("stale", .bool(true))) }
        if showing { members.append(("showing", .bool(true))) }
        if let sender = app.sender { members.append(("sender", SenderPayload.encode(sender))) }
        return .object(members)
    }

    init(json: JSONValue, path: String) throws(ProtocolError) {
        let reader = try FieldReader(json, path: path)
        guard let payload = reader.value("app") else { throw ProtocolError(.missingField, field: reader.name("app"), "is required") }
        app = try AppPayload.decode(payload, path: reader.name("app"))
        app.sender = reader.value("sender").flatMap(SenderPayload.decode)
        setAt = try reader.requiredNumber("setAt")
        stale = try reader.bool("stale") ?? false
        showing = try reader.bool("showing") ?? false
    }
}
