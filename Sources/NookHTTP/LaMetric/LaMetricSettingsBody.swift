import NookProtocol

/// The bodies of `PUT /api/v2/device/display` and `/audio` (M4), read for what they ask and
/// answered with what the board does with it: nookd has no operation that sets the brightness
/// (nook.toml's `[brightness]` does) and Nook's volume is nook.toml's `sound.volume`, so each field asked for
/// is checked and named as left as it is.
enum LaMetricSettingsBody {
    static func display(_ body: [UInt8]) -> Result<[String], HTTPAPIError> {
        fields(body) { key, value throws(HTTPAPIError) in
            switch key {
            case "brightness":
                try whole(value, key, 0...100)
                return "brightness \(value.serialized) is not set: nook-http has no way to set the brightness ([brightness] in nook.toml sets it)"
            case "brightness_mode":
                guard let mode = value.text, ["auto", "manual"].contains(mode) else { throw invalid(key, "must be auto or manual, got \(value.serialized.prefix(40))") }
                return "brightness_mode \(mode) is not set: nook.toml's [brightness] decides whether the room sets it"
            case "screensaver": return "the screensaver is not set: Nook has none (the home glance shows between cards)"
            case "on": return "on is not set: nookd turns the display off and on with who is there (presence)"
            default: return "'\(key.prefix(40))' is not a display setting LaMetric has: ignored"
            }
        }
    }

    static func audio(_ body: [UInt8]) -> Result<[String], HTTPAPIError> {
        fields(body) { key, value throws(HTTPAPIError) in
            guard key == "volume" else { return "'\(key.prefix(40))' is not an audio setting LaMetric has: ignored" }
            try whole(value, key, 0...100)
            return "volume \(value.serialized) is not set: Nook's volume is nook.toml's sound.volume, which the API does not change"
        }
    }

    private static func fields(_ body: [UInt8], _ note: (String, JSONValue) throws(HTTPAPIError) -> String) -> Result<[String], HTTPAPIError> {
        do throws(HTTPAPIError) {
            let value: JSONValue
            do { value = try JSONValue.parse(body) } catch {
                throw HTTPAPIError(status: 400, code: "malformed_json", message: "the body must be a JSON object: \(error)")
            }
            guard case .object(let members) = value else { throw invalid("body", "must be a JSON object, got \(value.typeName)") }
            var notes: [String] = []
            for (key, value) in members { notes.append(try note(key, value)) }
            return .success(notes)
        } catch {
            return .failure(error)
        }
    }

    private static func whole(_ value: JSONValue, _ key: String, _ range: ClosedRange<Double>) throws(HTTPAPIError) {
        guard let number = value.numberValue, range.contains(number), number == number.rounded() else {
            throw invalid(key, "must be a whole number from \(Int(range.lowerBound)) to \(Int(range.upperBound)), got \(value.serialized.prefix(40))")
        }
    }

    private static func invalid(_ field: String, _ message: String) -> HTTPAPIError {
        HTTPAPIError(status: 400, code: "invalid_field", field: field, message: message)
    }
}
