import NookActivities

extension AWTRIXDevice.Request {
    /// The indicator light this request sets, 1 to 3; nil for the other requests.
    public var indicatorNumber: Int? {
        switch self {
        case .indicator1: 1
        case .indicator2: 2
        case .indicator3: 3
        default: nil
        }
    }
}

extension AWTRIXDevice {
    /// The keys of an indicator's body AWTRIX reads.
    static let indicatorKeys = ["color", "blink", "fade"]

    /// An `indicatorN` body read as AWTRIX reads it (M1): empty or `{}` turns the light off and
    /// ends its blink and fade; `color` in any form AWTRIX takes (black turns it off); `blink`
    /// and `fade` in milliseconds, numbers or strings holding one, cut to whole ones; a body
    /// without `color` keeps the light's colour. With the remarks for the answer: a key given
    /// twice, keys AWTRIX does not read.
    public static func indicator(_ number: Int, body: [UInt8]) throws(ProtocolError) -> (setting: NookIndicator, remarks: [String]) {
        guard !body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else { return (.off(number), []) }
        var (value, remarks) = try AWTRIXFields.parse(body, kind: "an indicator is a JSON object such as {\"color\": [255, 0, 0]}")
        guard case .object(let members) = value else {
            throw ProtocolError(.wrongType, field: "body", "must be a JSON object, got \(value.typeName)")
        }
        if members.isEmpty { return (.off(number), remarks) }
        let unknown = members.map(\.0).filter { !indicatorKeys.contains($0) }
        if !unknown.isEmpty {
            remarks.append("unknown fields (not AWTRIX's), ignored: \(unknown.map(AWTRIXApp.shown).joined(separator: ", "))")
        }
        let color = try value["color"].map { (color) throws(ProtocolError) in try AWTRIXFields.color(color, field: "color") }
        func period(_ key: String) throws(ProtocolError) -> Int {
            guard let given = try AWTRIXFields.number(value[key], field: key) else { return 0 }
            // ArduinoJson's as<int>() cuts a fraction; a negative period or one past a minute is
            // no blink or fade the glass can show.
            let whole = given.rounded(.towardZero)
            guard whole >= 0, whole <= Double(NookIndicator.longestPeriodMs) else {
                throw ProtocolError(.invalid, field: key, "must be milliseconds from 0 to \(NookIndicator.longestPeriodMs), got \(FieldReader.text(given))")
            }
            return Int(whole)
        }
        return (NookIndicator(number: number, color: color, blinkMs: try period("blink"), fadeMs: try period("fade")), remarks)
    }
}
