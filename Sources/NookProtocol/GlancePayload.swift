import NookActivities

/// The `glance` op's payload (SPEC E8): a ``NookGlance`` as JSON, both ways, validated by
/// ``NookGlance/validate()`` with the field named as a path (`glance.lines[2]`).
public enum GlancePayload {
    public static let fields: Set<String> = ["columns", "rows", "lines", "titleRow", "bars", "highlightRow", "menu"]

    public static func decode(_ value: JSONValue) throws(ProtocolError) -> NookGlance {
        let reader = try FieldReader(value, path: "glance")
        try reader.rejectUnknown(fields)
        let columns = try reader.requiredInt("columns")
        let rows = try reader.requiredInt("rows")
        var lines: [String] = []
        for (index, line) in try reader.requiredArray("lines").enumerated() {
            guard case .string(let text) = line else {
                throw ProtocolError(.wrongType, field: "glance.lines[\(index)]", "must be a string, got \(line.typeName)")
            }
            lines.append(text)
        }
        var titleRow: Int?
        if reader.value("titleRow") != nil { titleRow = try reader.requiredInt("titleRow") }
        var highlightRow: Int?
        if reader.value("highlightRow") != nil { highlightRow = try reader.requiredInt("highlightRow") }
        var bars: [NookGlance.Bar] = []
        if reader.value("bars") != nil {
            for bar in try reader.requiredObjects("bars") {
                try bar.rejectUnknown(["row", "column", "length", "direction"])
                let text = try bar.requiredString("direction")
                guard let direction = NookGlance.Direction(rawValue: text) else {
                    throw ProtocolError(.invalid, field: bar.name("direction"), "must be h or v, got '\(text)'")
                }
                bars.append(NookGlance.Bar(row: try bar.requiredInt("row"), column: try bar.requiredInt("column"),
                                           length: try bar.requiredNumber("length"), direction: direction))
            }
        }
        let menu = try reader.bool("menu") ?? false
        let glance = NookGlance(columns: columns, rows: rows, lines: lines, titleRow: titleRow, bars: bars, highlightRow: highlightRow, menu: menu)
        do { try glance.validate() } catch { throw ProtocolError(.invalid, field: "glance.\(error.field)", error.problem) }
        return glance
    }

    public static func encode(_ glance: NookGlance) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("columns", .number(Double(glance.columns))), ("rows", .number(Double(glance.rows))),
            ("lines", .array(glance.lines.map { .string($0) })),
        ]
        if let titleRow = glance.titleRow { members.append(("titleRow", .number(Double(titleRow)))) }
        if let highlightRow = glance.highlightRow { members.append(("highlightRow", .number(Double(highlightRow)))) }
        if glance.menu { members.append(("menu", .bool(true))) }
        if !glance.bars.isEmpty {
            members.append(("bars", .array(glance.bars.map { bar in
                .object([("row", .number(Double(bar.row))), ("column", .number(Double(bar.column))),
                         ("length", .number(bar.length)), ("direction", .string(bar.direction.rawValue))])
            })))
        }
        return .object(members)
    }
}

/// `glance`: the home content now shown when no activity is (`glance`, or the configured
/// home after the glance was cleared).
public struct GlanceAnswer: NookAnswer {
    public var home: String

    public init(home: String) { self.home = home }

    public var json: JSONValue { .object([("home", .string(home))]) }

    public init(json: JSONValue) throws(ProtocolError) {
        home = try FieldReader(json, path: "result").requiredString("home")
    }
}
