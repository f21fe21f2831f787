#if canImport(Glibc)
import Glibc
#endif
import NookActivities

extension AWTRIXDevice {
    /// The keys of a mood light's body AWTRIX reads.
    static let moodLightKeys = ["brightness", "kelvin", "color"]
    /// The colour temperatures a mood light's `kelvin` is drawn within (the formula's range:
    /// candle light to a clear northern sky); one beyond is drawn at the nearest end, said.
    static let kelvins = 1_000...40_000

    /// A `moodlight` body read as AWTRIX reads it (M1), as nookd's `home` setting: empty or `{}`
    /// turns the light off (the home content it covered comes back); `kelvin` (a colour
    /// temperature, winning over `color`, as AWTRIX reads it first) or `color` (any form AWTRIX
    /// takes) lights the whole glass, at `brightness` (0–255, the colour scaled by it; none keeps
    /// the colour as given). With the remarks for the answer: a key given twice, keys AWTRIX does
    /// not read, a colour left out, a temperature drawn at the end of the range.
    public static func moodLight(body: [UInt8]) throws(ProtocolError) -> (setting: HomeSetting, remarks: [String]) {
        guard !body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else { return (.lightOff, []) }
        var (value, remarks) = try AWTRIXFields.parse(body, kind: "a moodlight is a JSON object such as {\"brightness\": 170, \"kelvin\": 2300}")
        guard case .object(let members) = value else {
            throw ProtocolError(.wrongType, field: "body", "must be a JSON object, got \(value.typeName)")
        }
        if members.isEmpty { return (.lightOff, remarks) }
        let unknown = members.map(\.0).filter { !moodLightKeys.contains($0) }
        if !unknown.isEmpty {
            remarks.append("unknown fields (not AWTRIX's), ignored: \(unknown.map(AWTRIXApp.shown).joined(separator: ", "))")
        }
        var color: UInt32
        if let kelvin = try AWTRIXFields.number(value["kelvin"], field: "kelvin") {
            let drawn = min(max(kelvin, Double(kelvins.lowerBound)), Double(kelvins.upperBound))
            if drawn != kelvin {
                remarks.append("kelvin: \(FieldReader.text(kelvin)) is drawn as \(Int(drawn)) K, the end of the range the board draws (1000 to 40000)")
            }
            color = Self.rgb(kelvin: drawn)
            if value["color"] != nil { remarks.append("color ignored: kelvin was given too, which AWTRIX takes first") }
        } else if let given = value["color"], given != .null {
            color = try AWTRIXFields.color(given, field: "color")
        } else {
            throw ProtocolError(.missingField, field: "color", "a mood light needs a color or a kelvin (an empty body turns it off)")
        }
        if let brightness = try AWTRIXFields.number(value["brightness"], field: "brightness") {
            guard (0...255).contains(brightness) else {
                throw ProtocolError(.invalid, field: "brightness", "must be from 0 to 255, got \(FieldReader.text(brightness))")
            }
            color = Self.scaled(color, by: brightness / 255)
        }
        // nookd turns a black lamp off, as AWTRIX's black turns an indicator off: said here.
        if color == 0 { remarks.append("black (a black colour or brightness 0) turns the mood light off") }
        return (color == 0 ? .lightOff : .light(color), remarks)
    }

    /// `color` with each channel times `factor` (0–1), rounded.
    static func scaled(_ color: UInt32, by factor: Double) -> UInt32 {
        [16, 8, 0].reduce(0) { rgb, shift in
            rgb | UInt32((Double((color >> UInt32(shift)) & 0xFF) * factor).rounded()) << UInt32(shift)
        }
    }

    /// The colour of a black body at `kelvin` (1000–40000), as sRGB: the usual fit of the CIE
    /// 1964 colour matching data (Tanner Helland's), whole channels.
    static func rgb(kelvin: Double) -> UInt32 {
        let t = kelvin / 100
        func channel(_ value: Double) -> UInt32 { UInt32(min(max(value, 0), 255).rounded()) }
        let red = t <= 66 ? 255 : channel(329.698727446 * pow(t - 60, -0.1332047592))
        let green = t <= 66 ? channel(99.4708025861 * log(t) - 161.1195681661) : channel(288.1221695283 * pow(t - 60, -0.0755148492))
        let blue = t >= 66 ? 255 : t <= 19 ? 0 : channel(138.5177312231 * log(t - 10) - 305.0447927307)
        return red << 16 | green << 8 | blue
    }
}
