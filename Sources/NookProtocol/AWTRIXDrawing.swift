import NookActivities

/// AWTRIX's `draw` field (M2): an array of objects, each naming a command and its values
/// (`{"dl": [0, 0, 31, 7, "#FF0000"]}`), read into a ``NookDrawing``. Numbers may be strings
/// and colours take every AWTRIX form (``AWTRIXFields``); a command AWTRIX does not know is
/// named and left out, as AWTRIX leaves it out; a known one that is malformed is an error naming
/// it by index (`draw[2].dl`). The native API and the journal carry the same form.
public enum AWTRIXDrawing {
    /// The commands and the values each takes, as AWTRIX's api.md lists them.
    public static let commands: [String: String] = [
        "dp": "[x, y, color]", "dl": "[x0, y0, x1, y1, color]", "dr": "[x, y, w, h, color]", "df": "[x, y, w, h, color]",
        "dc": "[x, y, r, color]", "dfc": "[x, y, r, color]", "dt": "[x, y, text, color]", "db": "[x, y, w, h, [pixels]]",
    ]

    /// The drawing in `value` (nil for an empty array), and notes on what was left out.
    public static func parse(_ value: JSONValue, field: String, notes: inout [String]) throws(ProtocolError) -> NookDrawing? {
        guard case .array(let items) = value else {
            throw ProtocolError(.wrongType, field: field, "must be an array of drawing commands ({\"dp\": [x, y, color]}, …), got \(value.typeName)")
        }
        var drawing: [NookDrawing.Command] = []
        var unknown: [String] = []
        for (index, item) in items.enumerated() {
            guard case .object(let members) = item else {
                throw ProtocolError(.wrongType, field: "\(field)[\(index)]", "must be an object such as {\"dp\": [x, y, color]}, got \(item.typeName)")
            }
            // AWTRIX draws every command of an object, in order.
            for (name, values) in members {
                let at = "\(field)[\(index)].\(name)"
                guard let form = commands[name] else {
                    unknown.append("\(field)[\(index)].\(AWTRIXApp.shown(name))")
                    continue
                }
                guard drawing.count < NookDrawing.Limits.commands else {
                    throw ProtocolError(.invalid, field: field, "must have at most \(NookDrawing.Limits.commands) commands (AWTRIX warns that many freeze it)")
                }
                drawing.append(try command(name, values, form: form, field: at))
            }
        }
        if !unknown.isEmpty {
            notes.append("not drawing commands (AWTRIX's are \(commands.keys.sorted().joined(separator: ", "))), ignored: \(unknown.joined(separator: ", "))")
        }
        guard !drawing.isEmpty else { return nil }
        let result = NookDrawing(drawing)
        do { try result.validate() } catch {
            throw ProtocolError(.invalid, field: error.field.replacingDrawField(with: field), error.problem)
        }
        return result
    }

    private static func command(_ name: String, _ value: JSONValue, form: String, field: String) throws(ProtocolError) -> NookDrawing.Command {
        guard case .array(let values) = value else { throw ProtocolError(.wrongType, field: field, "must be an array \(form), got \(value.typeName)") }
        let count = name == "dp" ? 3 : name == "dc" || name == "dfc" || name == "dt" ? 4 : 5
        guard values.count >= count else {
            throw ProtocolError(.invalid, field: field, "must be \(form): \(count) values, got \(values.count)")
        }
        func whole(_ index: Int) throws(ProtocolError) -> Int {
            // ArduinoJson's as<int>() cuts toward zero.
            guard let number = try AWTRIXFields.number(values[index], field: "\(field)[\(index)]") else {
                throw ProtocolError(.wrongType, field: "\(field)[\(index)]", "must be a number, got null")
            }
            guard abs(number) < 1e6 else {
                throw ProtocolError(.invalid, field: "\(field)[\(index)]", "must be from \(NookDrawing.Limits.coordinates.lowerBound) to \(NookDrawing.Limits.coordinates.upperBound), got \(number)")
            }
            return Int(number.rounded(.towardZero))
        }
        func color(_ index: Int) throws(ProtocolError) -> UInt32 { try AWTRIXFields.color(values[index], field: "\(field)[\(index)]") }
        switch name {
        case "dp": return .pixel(x: try whole(0), y: try whole(1), color: try color(2))
        case "dl": return .line(x0: try whole(0), y0: try whole(1), x1: try whole(2), y1: try whole(3), color: try color(4))
        case "dr", "df":
            return .rectangle(x: try whole(0), y: try whole(1), width: try whole(2), height: try whole(3), color: try color(4), filled: name == "df")
        case "dc", "dfc": return .circle(x: try whole(0), y: try whole(1), radius: try whole(2), color: try color(3), filled: name == "dfc")
        case "dt":
            guard case .string(let text) = values[2] else {
                throw ProtocolError(.wrongType, field: "\(field)[2]", "must be the text as a string, got \(values[2].typeName)")
            }
            return .text(x: try whole(0), y: try whole(1), text: text, color: try color(3))
        default:
            let (width, height) = (try whole(2), try whole(3))
            guard case .array(let pixels) = values[4] else {
                throw ProtocolError(.wrongType, field: "\(field)[4]", "must be the bitmap as an array of 0xRRGGBB numbers, got \(values[4].typeName)")
            }
            guard width >= 0, height >= 0, width * height <= NookDrawing.Limits.bitmapPixels, pixels.count <= width * height else {
                throw ProtocolError(.invalid, field: field, "a bitmap is at most \(NookDrawing.Limits.bitmapPixels) pixels (the 32x8) and has "
                                    + "at most width x height values: \(width)x\(height) with \(pixels.count) values")
            }
            var colors: [UInt32] = []
            for (index, pixel) in pixels.enumerated() { colors.append(try AWTRIXFields.color(pixel, field: "\(field)[4][\(index)]")) }
            return .bitmap(x: try whole(0), y: try whole(1), width: width, height: height, pixels: colors)
        }
    }

    /// The drawing in AWTRIX's own form, colours as `#RRGGBB` (what the native API and the journal keep).
    public static func encode(_ drawing: NookDrawing) -> JSONValue {
        func hex(_ color: UInt32) -> JSONValue {
            let digits = String(color, radix: 16, uppercase: true)
            return .string("#" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits)
        }
        func numbers(_ values: Int...) -> [JSONValue] { values.map { .number(Double($0)) } }
        return .array(drawing.commands.map { command in
            let (name, values): (String, [JSONValue]) = switch command {
            case .pixel(let x, let y, let color): ("dp", numbers(x, y) + [hex(color)])
            case .line(let x0, let y0, let x1, let y1, let color): ("dl", numbers(x0, y0, x1, y1) + [hex(color)])
            case .rectangle(let x, let y, let width, let height, let color, let filled): (filled ? "df" : "dr", numbers(x, y, width, height) + [hex(color)])
            case .circle(let x, let y, let radius, let color, let filled): (filled ? "dfc" : "dc", numbers(x, y, radius) + [hex(color)])
            case .text(let x, let y, let text, let color): ("dt", numbers(x, y) + [.string(text), hex(color)])
            case .bitmap(let x, let y, let width, let height, let pixels):
                ("db", numbers(x, y, width, height) + [.array(pixels.map { .number(Double($0)) })])
            }
            return .object([(name, .array(values))])
        })
    }
}

extension String {
    /// `draw[2]` from ``NookDrawing/validate()`` as the sender's field (`[1].draw[2]` in an array).
    func replacingDrawField(with field: String) -> String {
        hasPrefix("draw") ? field + dropFirst(4) : self
    }
}
