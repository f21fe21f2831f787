import NookActivities
import NookSound

extension AWTRIXDevice.Request {
    /// Whether nookd's `display` carries it out (wholly for `power` and `sleep`; for `settings`,
    /// its `MATP`, `BRI` and `ABRI`).
    public var switchesDisplay: Bool { self == .power || self == .sleep || self == .settings }
}

extension AWTRIXDevice {
    /// What `power`, `sleep` or `settings` ask of nookd's `display`, as AWTRIX reads them: the
    /// setting (one that only reads for `settings` without a display key), what was read
    /// otherwise than sent, and the lines for the `settings` keys Nook does not carry out.
    public struct DisplayPart: Sendable, Equatable {
        public var setting: DisplaySetting
        public var remarks: [String]
        public var notDone: [String]
        /// `settings`' `VOL` and `SOUND`, for nookd's `sound-volume`; nil when neither is given.
        public var volume: SoundVolumeSetting? = nil

        /// Whether nookd is asked nothing.
        public var asksNothing: Bool { setting.reads && volume == nil }
    }

    /// The keys of `settings` that nookd's `display` and `sound-volume` carry out.
    static let displayKeys: Set<String> = ["MATP", "BRI", "ABRI", "VOL", "SOUND"]

    /// `power`: `{"power": b}` (a key twice takes its last value), or `true`, `1`, `false`, `0`
    /// as plain text; anything else is refused naming `power` (AWTRIX takes any other text as
    /// off, which would switch the display off on a typo). `sleep`: `{"sleep": seconds}`, off for
    /// that long and then on again by itself (AWTRIX's deep sleep, which its middle button also
    /// ends), a fraction cut and said; 0, off until switched on; between 0 and 1, refused.
    /// `settings`: `MATP` as power, `BRI` (0–255) as the brightness set, `ABRI` on as nook.toml's
    /// and the room's brightness again (off keeps the brightness on the glass, set), `VOL` and
    /// `SOUND` as the volume; the other keys as ``AWTRIXSettings`` reads them.
    public static func display(_ request: Request, body: [UInt8], status: StatusAnswer?) throws(ProtocolError) -> DisplayPart {
        let given = body.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 } ? nil : body
        switch request {
        case .power:
            // An empty body asks nothing (AWTRIX answers it `OK` and does nothing): said.
            guard let given else { return DisplayPart(setting: DisplaySetting(), remarks: [], notDone: ["power: is required, {\"power\": true} or {\"power\": false}"]) }
            let text = String(decoding: given, as: UTF8.self).trimmingWhitespace
            guard text.hasPrefix("{") else {
                guard let on = plainFlag(text) else {
                    throw ProtocolError(.invalid, field: "power", "must be {\"power\": true}, {\"power\": false}, true or false; got \"\(AWTRIXApp.shown(text))\"")
                }
                return DisplayPart(setting: DisplaySetting(power: on ? .on : .off), remarks: [], notDone: [])
            }
            // An object that cannot be read or names no power is no request to turn the glass
            // off: refused.
            let (value, remarks) = try AWTRIXFields.parse(given, kind: "a power request is {\"power\": true} or {\"power\": false}")
            guard let asked = value["power"] else {
                throw ProtocolError(.missingField, field: "power", "is required: {\"power\": true} or {\"power\": false}")
            }
            let on = try flag(asked, field: "power")
            return DisplayPart(setting: DisplaySetting(power: on ? .on : .off), remarks: remarks + unknown(value, known: ["power"]), notDone: [])
        case .sleep:
            guard let given else { return DisplayPart(setting: DisplaySetting(), remarks: [], notDone: ["sleep: is required, {\"sleep\": SECONDS}"]) }
            let (value, remarks) = try AWTRIXFields.parse(given, kind: "a sleep request is {\"sleep\": SECONDS}")
            guard case .object = value, let asked = value["sleep"] else {
                throw ProtocolError(.missingField, field: "sleep", "is required: {\"sleep\": SECONDS}")
            }
            guard let seconds = try AWTRIXFields.number(asked, field: "sleep"), seconds >= 0, seconds <= Double(DisplaySetting.longestOffS) else {
                throw ProtocolError(.invalid, field: "sleep", "must be seconds from 0 to \(DisplaySetting.longestOffS), got \(asked.serialized.prefix(40))")
            }
            // ArduinoJson's as<int>() cuts a fraction; one that leaves 0 of a sleep asked for would
            // be off for good, which nobody asked for.
            let whole = Int(seconds.rounded(.towardZero))
            guard whole > 0 || seconds == 0 else {
                throw ProtocolError(.invalid, field: "sleep", "must be at least 1 second (0: off until switched on), got \(FieldReader.text(seconds))")
            }
            let cut = Double(whole) == seconds ? [] : ["sleep: \(FieldReader.text(seconds)) s read as \(whole) s (whole seconds, as AWTRIX reads it)"]
            return DisplayPart(setting: DisplaySetting(power: whole == 0 ? .off : .offFor(seconds: whole)),
                               remarks: remarks + cut + unknown(value, known: ["sleep"]), notDone: [])
        default:
            return try settings(given ?? [], status: status)
        }
    }

    /// `settings`: its display keys as a ``DisplaySetting``, `VOL` and `SOUND` as the volume, the
    /// rest as ``AWTRIXSettings`` reads them.
    static func settings(_ body: [UInt8], status: StatusAnswer?) throws(ProtocolError) -> DisplayPart {
        guard !body.isEmpty else { return DisplayPart(setting: DisplaySetting(), remarks: [], notDone: []) }
        var (value, remarks) = try AWTRIXFields.parse(body, kind: "settings are a JSON object")
        guard case .object(let members) = value else {
            throw ProtocolError(.wrongType, field: "body", "settings must be a JSON object, got \(value.typeName)")
        }
        var setting = DisplaySetting()
        if let matrix = value["MATP"] { setting.power = try flag(matrix, field: "MATP") ? .on : .off }
        let automatic = try value["ABRI"].map { (asked) throws(ProtocolError) in try flag(asked, field: "ABRI") }
        if let asked = try AWTRIXFields.number(value["BRI"], field: "BRI") {
            guard asked >= 0, asked <= 255 else { throw ProtocolError(.invalid, field: "BRI", "must be from 0 to 255, got \(FieldReader.text(asked))") }
            // A level above 0 is never rounded to dark; a fraction is cut (ArduinoJson's as<int>()), said.
            let level = asked.rounded(.towardZero)
            if level != asked { remarks.append("BRI: \(FieldReader.text(asked)) read as \(Int(level)) (whole levels, as AWTRIX reads it)") }
            setting.brightness = .percent(asked > 0 ? max(1, Int((level * 100 / 255).rounded())) : 0)
        }
        switch automatic {
        case true?:
            // AWTRIX's ABRI on leaves BRI unused: said.
            if setting.brightness != nil { remarks.append("BRI: not used while ABRI is on (nook.toml's levels and the room set it)") }
            setting.brightness = .automatic
        case false?: if setting.brightness == nil { setting.brightness = .percent(brightnessPercent(status)) }
        case nil: break
        }
        let volume = try volume(value, status: status, remarks: &remarks)
        let rest = members.filter { !displayKeys.contains($0.0) }
        return DisplayPart(setting: setting, remarks: remarks, notDone: try AWTRIXSettings.notDone(rest, status: status), volume: volume)
    }

    /// `VOL` (AWTRIX's 0–30) as the volume sounds start from; `SOUND` off as 0, on as nook.toml's
    /// volume again where it is 0 (else the volume stays). `SOUND` off wins over a `VOL`, said.
    static func volume(_ value: JSONValue, status: StatusAnswer?, remarks: inout [String]) throws(ProtocolError) -> SoundVolumeSetting? {
        let sound = try value["SOUND"].map { (asked) throws(ProtocolError) in try flag(asked, field: "SOUND") }
        var volume: SoundVolumeSetting?
        if let asked = try AWTRIXFields.number(value["VOL"], field: "VOL") {
            let level = asked.rounded(.towardZero)
            guard level >= 0, level <= 30 else { throw ProtocolError(.invalid, field: "VOL", "must be from 0 to 30, got \(FieldReader.text(asked))") }
            do throws(SoundError) { volume = .set(try SoundVolume.fromAWTRIX(Int(level))) } catch {
                throw ProtocolError(.invalid, field: "VOL", error.message)
            }
        }
        switch sound {
        case false?:
            if volume != nil { remarks.append("VOL: not used while SOUND is off (the volume is set to 0)") }
            return .set(0)
        case true? where volume == nil:
            return status?.sound?.volume == 0 ? .configured : nil
        default:
            return volume
        }
    }

    /// The brightness as a percentage set over the API would give it: the one set, else what
    /// keeps the glass as it is (nookd's `percent`, the level on the glass on `brightness.active`'s
    /// scale), else, from a nookd that does not say, the level last written.
    static func brightnessPercent(_ status: StatusAnswer?) -> Int {
        guard let brightness = status?.brightness else { return 100 }
        if let set = brightness.percentSet ?? brightness.percent { return set }
        return brightness.maximum > 0 ? Int((Double(brightness.level) * 100 / Double(brightness.maximum)).rounded()) : 100
    }

    /// A line naming the members of `value` AWTRIX does not read, or none.
    static func unknown(_ value: JSONValue, known: [String]) -> [String] {
        guard case .object(let members) = value else { return [] }
        let unknown = members.map(\.0).filter { !known.contains($0) }
        return unknown.isEmpty ? [] : ["unknown fields (not AWTRIX's), ignored: \(unknown.map(AWTRIXApp.shown).joined(separator: ", "))"]
    }

    /// What became of a `power`, `sleep` or `settings` request, from nookd's answer to its
    /// `display` (nil when it asked nothing of the display): done when all of it holds; else
    /// each part not done, said.
    /// A request done in part says what was done too, so that a client does not take it for
    /// nothing done and send it again.
    public static func outcome(of answer: DisplayAnswer?, volume: SoundVolumeAnswer? = nil, _ part: DisplayPart) -> Outcome {
        let lines = (answer?.warnings ?? []) + (volume?.warnings ?? []) + part.notDone
        guard !lines.isEmpty else { return .done(remarks: part.remarks) }
        let done = (answer.map { ["done: \($0.summary)"] } ?? []) + (volume.map { ["done: \($0.summary)"] } ?? [])
        return .notDone(part.remarks + lines + done)
    }
}
