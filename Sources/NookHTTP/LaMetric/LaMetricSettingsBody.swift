import NookProtocol

/// The bodies of `PUT /api/v2/device/display` and `/audio` (M4), read for what they ask:
/// `on`, `brightness` and `brightness_mode` are nookd's `display` (a brightness alone is set,
/// as a slider moved means; `auto` gives it back to nook.toml and the room; `manual` alone keeps
/// the brightness on the glass, set); `volume` is its `sound-volume`. What the board does not
/// take is named: the screensaver (Nook has none), keys LaMetric lacks.
enum LaMetricSettingsBody {
    static func display(_ body: [UInt8], status: JSONValue) -> Result<(DisplaySetting, [String]), HTTPAPIError> {
        var setting = DisplaySetting()
        var percent: Int?
        var mode: String?
        let notes = fields(body) { key, value throws(HTTPAPIError) -> String? in
            switch key {
            case "brightness":
                percent = try whole(value, key, 0...100)
                return nil
            case "brightness_mode":
                guard let asked = value.text, ["auto", "manual"].contains(asked) else { throw invalid(key, "must be auto or manual, got \(value.serialized.prefix(40))") }
                mode = asked
                return nil
            case "on":
                guard case .bool(let on) = value else { throw invalid(key, "must be true or false, got \(value.serialized.prefix(40))") }
                setting.power = on ? .on : .off
                return nil
            case "screensaver": return "the screensaver is not set: Nook has none (the home glance shows between cards)"
            default: return "'\(key.prefix(40))' is not a display setting LaMetric has: ignored"
            }
        }
        return notes.map { notes in
            switch (mode, percent) {
            case ("auto"?, let percent):
                setting.brightness = .automatic
                let ignored = percent.map { ["brightness \($0) is not used: brightness_mode auto sets it from nook.toml and the room"] } ?? []
                return (setting, notes + ignored)
            case (_, let percent?): setting.brightness = .percent(percent)
            case ("manual"?, nil): setting.brightness = .percent(LaMetricDevice.brightness(status: status).percent)
            case (_, nil): break
            }
            return (setting, notes)
        }
    }

    /// `volume` (0–100) is nookd's `sound-volume`; nil when the body has none.
    static func audio(_ body: [UInt8]) -> Result<(SoundVolumeSetting?, [String]), HTTPAPIError> {
        var volume: SoundVolumeSetting?
        return fields(body) { key, value throws(HTTPAPIError) -> String? in
            guard key == "volume" else { return "'\(key.prefix(40))' is not an audio setting LaMetric has: ignored" }
            volume = .set(try whole(value, key, 0...100))
            return nil
        }.map { (volume, $0) }
    }

    /// Each member of the object read by `note`, with the notes it gives.
    private static func fields(_ body: [UInt8], _ note: (String, JSONValue) throws(HTTPAPIError) -> String?) -> Result<[String], HTTPAPIError> {
        do throws(HTTPAPIError) {
            let value: JSONValue
            do { value = try JSONValue.parse(body) } catch {
                throw HTTPAPIError(status: 400, code: "malformed_json", message: "the body must be a JSON object: \(error)")
            }
            guard case .object(let members) = value else { throw invalid("body", "must be a JSON object, got \(value.typeName)") }
            var notes: [String] = []
            for (key, value) in members { if let said = try note(key, value) { notes.append(said) } }
            return .success(notes)
        } catch {
            return .failure(error)
        }
    }

    private static func whole(_ value: JSONValue, _ key: String, _ range: ClosedRange<Double>) throws(HTTPAPIError) -> Int {
        guard let number = value.numberValue, range.contains(number), number == number.rounded() else {
            throw invalid(key, "must be a whole number from \(Int(range.lowerBound)) to \(Int(range.upperBound)), got \(value.serialized.prefix(40))")
        }
        return Int(number)
    }

    private static func invalid(_ field: String, _ message: String) -> HTTPAPIError {
        HTTPAPIError(status: 400, code: "invalid_field", field: field, message: message)
    }
}
