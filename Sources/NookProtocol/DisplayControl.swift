import NookActivities

/// What `display` asks of the glass (M1's `power` and `sleep`, AWTRIX's `BRI` and `ABRI`,
/// LaMetric's `PUT display`, `nookctl display`): switched off, for good or for a while, or on
/// again; the brightness set, or given back to nook.toml's levels and the room. Neither asked:
/// the display's state, read.
public struct DisplaySetting: Hashable, Sendable {
    public enum Power: Hashable, Sendable {
        case on
        /// Off until switched on again.
        case off
        /// Off, and on again by itself after this many seconds (AWTRIX's `sleep`).
        case offFor(seconds: Int)
    }

    public enum Brightness: Hashable, Sendable {
        /// A card shows at this percentage of the panel's brightness; home content, quiet hours
        /// and an empty room keep their proportion to it (nook.toml's levels, scaled).
        case percent(Int)
        /// nook.toml's levels again, following the room's light where a sensor reads it.
        case automatic
    }

    public var power: Power?
    public var brightness: Brightness?

    public init(power: Power? = nil, brightness: Brightness? = nil) { (self.power, self.brightness) = (power, brightness) }

    /// Whether it only reads the display's state.
    public var reads: Bool { power == nil && brightness == nil }

    /// The longest a display is switched off for by itself: a week (AWTRIX's `sleep` takes any
    /// number of seconds; a longer one is a mistake, and `off` is there for good).
    public static let longestOffS = 7 * 86_400
    public static let percents = 0...100

    static func decode(_ reader: FieldReader) throws(ProtocolError) -> DisplaySetting {
        var setting = DisplaySetting()
        switch try reader.string("power") {
        case nil: break
        case "on": setting.power = .on
        case "off": setting.power = .off
        case let other?: throw ProtocolError(.invalid, field: "power", "must be on or off; got '\(other.prefix(40))'")
        }
        if let seconds = try reader.number("forS") {
            guard setting.power == .off else { throw ProtocolError(.invalid, field: "forS", "goes with power off: how long the display stays off") }
            guard seconds >= 1, seconds <= Double(longestOffS), seconds == seconds.rounded() else {
                throw ProtocolError(.invalid, field: "forS", "must be whole seconds from 1 to \(longestOffS), got \(FieldReader.text(seconds))")
            }
            setting.power = .offFor(seconds: Int(seconds))
        }
        switch reader.value("brightness") {
        case nil, .null?: break
        case .string("auto")?: setting.brightness = .automatic
        case .number(let percent)? where percent >= 0 && percent <= 100 && percent == percent.rounded():
            setting.brightness = .percent(Int(percent))
        case let other?:
            throw ProtocolError(.invalid, field: "brightness", "must be a whole percentage from 0 to 100, or \"auto\"; got \(other.serialized.prefix(40))")
        }
        return setting
    }

    var encoded: [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = []
        switch power {
        case nil: break
        case .on?: fields.append(("power", .string("on")))
        case .off?: fields.append(("power", .string("off")))
        case .offFor(let seconds)?: fields += [("power", .string("off")), ("forS", .number(Double(seconds)))]
        }
        switch brightness {
        case nil: break
        case .automatic?: fields.append(("brightness", .string("auto")))
        case .percent(let percent)?: fields.append(("brightness", .number(Double(percent))))
        }
        return fields
    }
}

/// `display`: whether the display is switched on, how long until it switches itself on again,
/// whether the glass is dark for want of anyone in the room, and its brightness: set over the
/// API (a percentage) or nook.toml's and the room's (`auto`), nil where nookd leaves the
/// brightness alone (no `[brightness]` table). The warnings say what was asked and not done.
public struct DisplayAnswer: NookAnswer, NookWarningAnswer {
    public var on: Bool
    /// Seconds until a display switched off for a while is on again.
    public var wakesInS: Int?
    /// Dark while nobody is in the room (Z3), whether switched on or not.
    public var nobodyThere: Bool
    /// The percentage set; nil: `auto`.
    public var brightnessSet: Int?
    /// Whether nookd sets the brightness at all (`[brightness]` in nook.toml).
    public var brightnessManaged: Bool
    public var warnings: [String]

    public init(on: Bool, wakesInS: Int? = nil, nobodyThere: Bool = false, brightnessSet: Int? = nil, brightnessManaged: Bool,
                warnings: [String] = []) {
        (self.on, self.wakesInS, self.nobodyThere, self.brightnessSet) = (on, wakesInS, nobodyThere, brightnessSet)
        (self.brightnessManaged, self.warnings) = (brightnessManaged, warnings)
    }

    /// `brightness` on the wire: the percentage, `auto`, or `unmanaged`.
    var brightnessText: JSONValue {
        guard brightnessManaged else { return .string("unmanaged") }
        return brightnessSet.map { .number(Double($0)) } ?? .string("auto")
    }

    public var json: JSONValue {
        .object([("power", .string(on ? "on" : "off")), ("wakesInS", wakesInS.map { .number(Double($0)) } ?? .null),
                 ("nobodyThere", .bool(nobodyThere)), ("brightness", brightnessText)] + warningsMember(warnings))
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        switch try reader.requiredString("power") {
        case "on": on = true
        case "off": on = false
        case let other: throw ProtocolError(.invalid, field: reader.name("power"), "must be on or off, got '\(other.prefix(40))'")
        }
        wakesInS = try reader.count("wakesInS")
        nobodyThere = try reader.bool("nobodyThere") ?? false
        switch reader.value("brightness") {
        case .string("unmanaged")?: (brightnessManaged, brightnessSet) = (false, nil)
        case .string("auto")?: (brightnessManaged, brightnessSet) = (true, nil)
        case .number(let percent)? where percent >= 0 && percent <= 100:
            (brightnessManaged, brightnessSet) = (true, Int(percent.rounded()))
        default: throw ProtocolError(.invalid, field: reader.name("brightness"), "must be a percentage, auto or unmanaged")
        }
        warnings = reader.warnings()
    }

    /// What nookctl prints: `display: on, brightness 40 %` (the warnings go to standard error).
    public var summary: String {
        var power = on ? "on" : "off"
        if let wakesInS { power += " for \(Self.spoken(wakesInS)) more" }
        if nobodyThere { power += on ? " (dark: nobody is in the room)" : " (and nobody is in the room)" }
        let brightness = !brightnessManaged ? "brightness not set by nookd (no [brightness] table)"
            : brightnessSet.map { "brightness \($0) %" } ?? "brightness auto"
        return "display: \(power), \(brightness)"
    }

    /// `2d 03h`, `2h 05m`, `4m 10s`, `9s`.
    public static func spoken(_ seconds: Int) -> String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        if seconds >= 86_400 { return "\(seconds / 86_400)d \(two(seconds % 86_400 / 3600))h" }
        if seconds >= 3600 { return "\(seconds / 3600)h \(two(seconds % 3600 / 60))m" }
        return seconds >= 60 ? "\(seconds / 60)m \(two(seconds % 60))s" : "\(seconds)s"
    }
}
