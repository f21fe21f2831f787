import NookActivities

/// How AWTRIX 3 reads a field, for both its custom apps and its notifications (M2): ArduinoJson
/// converts as it goes, so a sender written against AWTRIX sends numbers as strings (`"73"`),
/// a key twice, colours in several forms. Nook takes what AWTRIX takes, and refuses only what
/// has no meaning on the glass, naming the field.
public enum AWTRIXFields {
    /// The body parsed as ArduinoJson parses it (a key twice takes its last value), and a
    /// remark naming the keys given twice; `kind` names the body in a JSON error.
    static func parse(_ bytes: [UInt8], kind: String) throws(ProtocolError) -> (value: JSONValue, remarks: [String]) {
        let parsed = try parseByElement(bytes, kind: kind)
        return (parsed.value, parsed.remarks + parsed.elementRemarks.keys.sorted().flatMap { parsed.elementRemarks[$0] ?? [] })
    }

    /// As ``parse(_:kind:)``, the remarks of each element of a top-level array apart
    /// (`elementRemarks`), so that each app of an array is told of its own.
    static func parseByElement(_ bytes: [UInt8], kind: String) throws(ProtocolError) -> (value: JSONValue, remarks: [String], elementRemarks: [Int: [String]]) {
        let parsed: JSONValue.Parsed
        do { parsed = try JSONValue.parseKeepingLastByElement(bytes) } catch {
            throw ProtocolError(.badJSON, field: "body", "\(kind): \(error)")
        }
        func remark(_ keys: [String]) -> [String] {
            keys.isEmpty ? [] : ["given twice, the last value used (as AWTRIX does): \(keys.map(AWTRIXApp.shown).joined(separator: ", "))"]
        }
        var byElement: [Int: [String]] = [:]
        for (element, key) in parsed.elementDuplicates { byElement[element, default: []].append(key) }
        // Every key of an array body is in one of its elements: each is told of its own.
        let whole = parsed.value.items.isEmpty ? parsed.duplicates : []
        return (parsed.value, remark(whole), byElement.mapValues(remark))
    }

    /// A number, or a string holding one (`"73"`, `" 21.5 "`), as ArduinoJson's `as<int>()`
    /// reads both; nil for a field not given (or null).
    static func number(_ value: JSONValue?, field: String) throws(ProtocolError) -> Double? {
        let number: Double
        switch value {
        case nil, .null?: return nil
        case .number(let given)?: number = given
        case .string(let text)?:
            // Decimal only, as ArduinoJson reads a number: Swift's Double also reads "0x10" as 16.
            let trimmed = text.trimmingWhitespace
            guard trimmed.utf8.allSatisfy(isDecimalByte), let given = Double(trimmed) else {
                throw ProtocolError(.wrongType, field: field, "must be a number (or a string holding one), got \"\(AWTRIXApp.shown(text))\"")
            }
            number = given
        case let other?: throw ProtocolError(.wrongType, field: field, "must be a number, got \(other.typeName)")
        }
        guard number.isFinite else { throw ProtocolError(.invalid, field: field, "must be a finite number") }
        return number
    }

    /// An icon's name: a string, or a LaMetric icon id sent as a JSON number (`"icon": 2400`), which
    /// AWTRIX reads as its text (ArduinoJson's `as<String>()`); nil for one not given (or null). An
    /// id is a whole number from 0: any other number names no icon.
    static func icon(_ value: JSONValue?, field: String) throws(ProtocolError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let name)?: return name
        case .number(let id)? where id >= 0 && id <= 9_999_999 && id == id.rounded(.towardZero): return String(Int(id))
        case .number(let other)?: throw ProtocolError(.invalid, field: field, "a number names a LaMetric icon id, a whole number from 0 to 9999999; got \(other)")
        case let other?: throw ProtocolError(.wrongType, field: field, "must be a string (or a LaMetric icon id), got \(other.typeName)")
        }
    }

    /// The refusal of a body with nothing to show, saying what of it was left out (a drawing
    /// of unknown commands, an icon that is none, fields not drawn), which is why.
    static func nothingToShow(field: String, leftOut: [String], hint: String = "") -> ProtocolError {
        ProtocolError(.missingField, field: field, "is required when there is no icon, progress, bar, line or draw to show" + hint
                      + (leftOut.isEmpty ? "" : "; left out of what was sent: " + leftOut.joined(separator: "; ")))
    }

    /// A byte of a decimal number: digits, a sign, a point, an exponent.
    private static func isDecimalByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || byte == 0x2B || byte == 0x2D || byte == 0x2E || byte == 0x65 || byte == 0x45
    }

    /// A byte of a hex digit.
    private static func isHexByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// What ``color(_:field:)`` takes, for its error.
    static let colorForms = "\"#RRGGBB\", \"RRGGBB\", \"#RGB\", a palette name (red, …), an integer 0xRRGGBB, [R, G, B] (0–255) or [\"HSV\", H, S, V] (0–255)"

    /// A colour as `0xRRGGBB`, in every form AWTRIX takes: a hex string with or without `#`
    /// (six digits; three as CSS's `#f00`; fewer as AWTRIX reads them, so `"0"` is black), an
    /// integer, `[r, g, b]` with numbers cut to whole ones as ArduinoJson does (128.5 is 128),
    /// `["HSV", h, s, v]` on 0–255 scales, and a palette name where AWTRIX would draw black.
    static func color(_ value: JSONValue, field: String) throws(ProtocolError) -> UInt32 {
        switch value {
        case .string(let given):
            var text = given.trimmingWhitespace
            let prefixed = text.hasPrefix("#") || text.lowercased().hasPrefix("0x")
            if text.hasPrefix("#") { text.removeFirst() } else if prefixed { text.removeFirst(2) }
            // An empty string is AWTRIX's black; a "#" or "0x" with no digits (or a sign, which
            // UInt32(_:radix:) would take) is no colour.
            if text.isEmpty, !prefixed { return 0 }
            if text.isEmpty || !text.utf8.allSatisfy(isHexByte) {
                if !prefixed, let rgb = paletteRGB[text.lowercased()] { return rgb }
                break
            }
            if text.count == 3, let short = UInt32(text, radix: 16) {
                let (r, g, b) = ((short >> 8) & 0xF, (short >> 4) & 0xF, short & 0xF)
                return (r * 0x11) << 16 | (g * 0x11) << 8 | b * 0x11
            }
            if (1...6).contains(text.count), let rgb = UInt32(text, radix: 16) { return rgb }
        case .number(let number):
            if number == number.rounded(), (0...0xFF_FFFF).contains(number) { return UInt32(number) }
        case .array(let parts) where parts.count == 3 || (parts.count == 4 && parts[0].text?.uppercased() == "HSV"):
            let numbers = parts.suffix(3).compactMap { part -> UInt32? in
                guard let number = (try? Self.number(part, field: field)) ?? nil, number > -1, number < 256 else { return nil }
                return UInt32(number.rounded(.towardZero))
            }
            guard numbers.count == 3 else { break }
            return parts.count == 4 ? hsv(numbers[0], numbers[1], numbers[2]) : numbers[0] << 16 | numbers[1] << 8 | numbers[2]
        default: break
        }
        throw ProtocolError(.invalid, field: field, "must be a colour as \(colorForms), got \(AWTRIXApp.shown(value.serialized))")
    }

    /// A colour as a tint: a palette name stays the board's own colour (drawn in its theme).
    /// An empty string is no colour (AWTRIX's black, which its senders send meaning "none").
    static func tint(_ value: JSONValue, field: String) throws(ProtocolError) -> NookTint {
        if case .string(let text) = value, text.trimmingWhitespace.isEmpty { return .accent }
        if case .string(let text) = value, let tint = NookTint(parsing: text.trimmingWhitespace.lowercased()), !text.hasPrefix("#") { return tint }
        let rgb = try color(value, field: field)
        return .rgb(red: UInt8(rgb >> 16), green: UInt8((rgb >> 8) & 0xFF), blue: UInt8(rgb & 0xFF))
    }

    /// The palette's names as plain RGB, for drawing commands (which take colours, not tints).
    static let paletteRGB: [String: UInt32] = [
        "red": 0xFF0000, "orange": 0xFF8000, "yellow": 0xFFFF00, "green": 0x00FF00, "mint": 0x00FFA0, "teal": 0x008080,
        "cyan": 0x00FFFF, "blue": 0x0000FF, "indigo": 0x4B0082, "purple": 0x8000FF, "pink": 0xFF60B0, "brown": 0x8B4513,
        "gray": 0x808080, "grey": 0x808080, "white": 0xFFFFFF, "black": 0x000000,
    ]

    /// HSV on 0–255 scales (FastLED's, which AWTRIX's array form names) as RGB.
    static func hsv(_ hue: UInt32, _ saturation: UInt32, _ value: UInt32) -> UInt32 {
        let (h, s, v) = (Double(hue) / 256 * 6, Double(saturation) / 255, Double(value) / 255)
        let sector = Int(h)
        let fraction = h - Double(sector)
        let (p, q, t) = (v * (1 - s), v * (1 - s * fraction), v * (1 - s * (1 - fraction)))
        let (r, g, b): (Double, Double, Double) = switch sector {
        case 0: (v, t, p)
        case 1: (q, v, p)
        case 2: (p, v, t)
        case 3: (p, q, v)
        case 4: (t, p, v)
        default: (v, p, q)
        }
        return UInt32((r * 255).rounded()) << 16 | UInt32((g * 255).rounded()) << 8 | UInt32((b * 255).rounded())
    }
}

extension String {
    /// Without spaces, tabs and line breaks at either end.
    var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
