import NookActivities

/// One of the three indicator lights (M1, AWTRIX's `indicator1..3`): a small coloured mark at
/// the glass's right edge, drawn over cards, apps and home content until turned off.
public struct NookIndicator: Hashable, Sendable {
    public static let numbers = 1...3
    /// The longest blink or fade period taken, in milliseconds.
    public static let longestPeriodMs = 60_000
    /// The shortest blink a board draws, and the shortest step of a fade, in milliseconds: the
    /// glass is redrawn at most this often for the indicators (a panel's whole frame each time).
    public static let shortestStepMs = 100

    public var number: Int
    /// `0xRRGGBB`; black (0) turns the light off. Nil keeps its colour and whether it is lit, as
    /// AWTRIX does for a body with no `color` (a blink or fade changed alone).
    public var color: UInt32?
    /// On for this long, then off for as long; 0 does not blink.
    public var blinkMs: Int
    /// One rise and fall of its brightness takes this long; 0 does not fade. A blink wins.
    public var fadeMs: Int

    public init(number: Int, color: UInt32?, blinkMs: Int = 0, fadeMs: Int = 0) {
        (self.number, self.color, self.blinkMs, self.fadeMs) = (number, color, blinkMs, fadeMs)
    }

    /// The light off, its blink and fade ended (AWTRIX's empty body or `{}`).
    public static func off(_ number: Int) -> NookIndicator { NookIndicator(number: number, color: 0) }

    /// `#rrggbb`, as the wire and the answers write a colour.
    public static func hex(_ color: UInt32) -> String { NookTint(rgb: color).description }

    /// A `#rrggbb` colour, or nil.
    public static func color(hex text: String) -> UInt32? { NookTint(parsing: text)?.rgbValue }

    static func decode(_ reader: FieldReader) throws(ProtocolError) -> NookIndicator {
        let number = try reader.requiredInt("number")
        guard numbers.contains(number) else { throw ProtocolError(.invalid, field: "number", "must be 1, 2 or 3, got \(number)") }
        var color: UInt32?
        if let text = try reader.string("color") {
            guard let parsed = Self.color(hex: text) else { throw ProtocolError(.invalid, field: "color", "must be #rrggbb, got '\(text)'") }
            color = parsed
        }
        func period(_ key: String) throws(ProtocolError) -> Int {
            guard let value = try reader.number(key, in: 0...Double(longestPeriodMs)) else { return 0 }
            guard value == value.rounded() else { throw ProtocolError(.invalid, field: key, "must be whole milliseconds, got \(value)") }
            return Int(value)
        }
        return NookIndicator(number: number, color: color, blinkMs: try period("blinkMs"), fadeMs: try period("fadeMs"))
    }

    var encoded: [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [("number", .number(Double(number)))]
        if let color { fields.append(("color", .string(Self.hex(color)))) }
        if blinkMs > 0 { fields.append(("blinkMs", .number(Double(blinkMs)))) }
        if fadeMs > 0 { fields.append(("fadeMs", .number(Double(fadeMs)))) }
        return fields
    }
}

/// `indicator`: the light as it is now (`color` nil while it is off) and what was drawn
/// otherwise than asked (a blink shorter than the board draws, a fade under a blink).
public struct IndicatorAnswer: NookAnswer, NookWarningAnswer {
    public var number: Int
    public var color: String?
    public var blinkMs: Int
    public var fadeMs: Int
    public var warnings: [String]

    public init(number: Int, color: String?, blinkMs: Int, fadeMs: Int, warnings: [String]) {
        (self.number, self.color, self.blinkMs, self.fadeMs, self.warnings) = (number, color, blinkMs, fadeMs, warnings)
    }

    public var json: JSONValue {
        .object([("number", .number(Double(number))), ("color", color.map(JSONValue.string) ?? .null),
                 ("blinkMs", .number(Double(blinkMs))), ("fadeMs", .number(Double(fadeMs)))] + warningsMember(warnings))
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        number = try reader.requiredInt("number")
        color = try reader.string("color")
        blinkMs = try reader.count("blinkMs") ?? 0
        fadeMs = try reader.count("fadeMs") ?? 0
        warnings = reader.warnings()
    }

    /// What nookctl prints (the warnings go to standard error).
    public var summary: String {
        var words = ["indicator\(number):", color ?? "off"]
        if color != nil, blinkMs > 0 { words.append("blinking every \(blinkMs) ms") } else if color != nil, fadeMs > 0 { words.append("fading over \(fadeMs) ms") }
        return words.joined(separator: " ")
    }
}
