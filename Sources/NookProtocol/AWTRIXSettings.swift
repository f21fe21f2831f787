import NookActivities
import NookSound

/// AWTRIX's `settings` (M1): read, AWTRIX's keys with Nook's values; written, `MATP`, `BRI`
/// and `ABRI` are nookd's `display` (``AWTRIXDevice/display(_:body:status:)``), a key whose
/// asked value is already Nook's holds, and every other is named with what Nook does instead.
/// Nook's look and rotation come from nook.toml, which nookd reads at start and at a reload,
/// not from a request.
public enum AWTRIXSettings {
    /// Why a key is not set over the API, by the group it belongs to.
    static func instead(_ key: String) -> String {
        switch key {
        case "ATIME", "ATRANS": "the apps take turns as nook.toml's [apps] table says (nookctl app-next turns them)"
        case "TEFF", "TSPEED": "Nook slides between apps, as its theme times it"
        case "TIM", "DAT", "HUM", "TEMP", "BAT": "Nook has none of AWTRIX's built-in apps: its home content is set by nookctl home"
        case "BLOCKN": "Nook's inputs are nook.toml's [inputs]"
        default: "Nook's look is its theme's (nook.toml's [display] theme), not AWTRIX's"
        }
    }

    /// Every key AWTRIX answers, with the value a Nook board gives; the first ones are Nook's
    /// own, the rest AWTRIX's defaults, named as such in docs/awtrix-device.md.
    public static func current(_ status: StatusAnswer?) -> JSONValue {
        func number(_ value: Int) -> JSONValue { .number(Double(value)) }
        let white = number(0xFF_FFFF)
        return .object([
            ("MATP", .bool(AWTRIXDevice.matrixOn(status))),
            // On while nookd sets the brightness from nook.toml's levels (and the room, with a
            // sensor) and none is set over the API.
            ("ABRI", .bool(status?.brightness != nil && status?.brightness?.percentSet == nil)),
            ("BRI", number(AWTRIXDevice.brightness(status))), ("ATRANS", .bool(true)), ("TEFF", number(1)),
            ("TCOL", white), ("TSPEED", number(500)), ("ATIME", number(7)), ("TMODE", number(1)),
            ("CHCOL", number(0xFF_0000)), ("CTCOL", number(0)), ("CBCOL", white),
            ("TFORMAT", .string("%H:%M")), ("DFORMAT", .string("%d.%m.%y")), ("SOM", .bool(true)), ("CEL", .bool(true)),
            ("BLOCKN", .bool(false)), ("MAT", number(0)), ("SOUND", .bool(soundOn(status))), ("GAMMA", number(0)),
            ("UPPERCASE", .bool(false)), ("CCORRECTION", .string("#FFFFFF")), ("CTEMP", .string("#FFFFFF")),
            ("WD", .bool(false)), ("WDCA", white), ("WDCI", number(0x66_6666)),
            ("TIME_COL", number(0)), ("DATE_COL", number(0)), ("HUM_COL", number(0)), ("TEMP_COL", number(0)), ("BAT_COL", number(0)),
            ("SSPEED", number(100)), ("TIM", .bool(false)), ("DAT", .bool(false)), ("HUM", .bool(false)), ("TEMP", .bool(false)),
            ("BAT", .bool(false)), ("VOL", number(SoundVolume.toAWTRIX(soundOn(status) ? status?.sound?.volume ?? 0 : 0))),
            ("OVERLAY", .string("clear")),
        ])
    }

    /// AWTRIX's `SOUND` (its buzzer on): a sound output configured and not failing, at a volume
    /// above 0 (B1).
    static func soundOn(_ status: StatusAnswer?) -> Bool {
        guard let sound = status?.sound else { return false }
        return sound.output != "none" && sound.state != "unavailable" && (sound.volume ?? 0) > 0
    }

    /// The keys besides the display's whose value above is the board's own, so that asking for
    /// it holds.
    static let known: Set<String> = ["ATRANS", "TEFF"]

    /// The keys of a written `settings` body other than the display's: a line for each that
    /// does not already hold on the board.
    static func notDone(_ members: [(String, JSONValue)], status: StatusAnswer?) throws(ProtocolError) -> [String] {
        guard case .object(let board) = current(status) else { return [] }
        var lines: [String] = []
        for (key, asked) in members {
            guard let held = board.first(where: { $0.0 == key })?.1 else {
                lines.append("\(AWTRIXApp.shown(key)): is not one of AWTRIX's settings")
                continue
            }
            if known.contains(key), try same(asked, held, key: key) { continue }
            lines.append("\(key): not changed; \(instead(key))")
        }
        return lines
    }

    /// Whether the asked value is the board's, read as AWTRIX reads it (numbers as strings).
    static func same(_ asked: JSONValue, _ held: JSONValue, key: String) throws(ProtocolError) -> Bool {
        switch held {
        case .bool(let flag): return try AWTRIXDevice.flag(asked, field: key) == flag
        case .number(let number): return try AWTRIXFields.number(asked, field: key) == number
        default: return asked == held
        }
    }
}
