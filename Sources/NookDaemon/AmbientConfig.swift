import NookLogging
import NookConfig
import NookInput

/// Z2's ambient light sensor and its curve, from `[brightness]`'s `ambient_*` keys.
struct AmbientSettings: Hashable, Sendable {
    var sensor: AmbientLightSensor.Settings
    var curve: AmbientBrightness

    /// A dark room at a fifth of each level, an evening lamp at about half, daylight at full.
    static let defaultCurve = [AmbientBrightness.Point(lux: 0, scale: 0.2), .init(lux: 10, scale: 0.4),
                               .init(lux: 100, scale: 0.7), .init(lux: 500, scale: 1)]

    /// nil without `brightness.ambient_sensor` or `ambient_device`; the other keys without
    /// either are a mistake, not a quiet no-op.
    static func reading(_ reader: ConfigReader) throws(ConfigError) -> AmbientSettings? {
        typealias Keys = Service.Brightness
        let name = try Keys.ambientSensor.read(reader)
        let device = try Keys.ambientDevice.read(reader)
        guard name != nil || device != nil else {
            let needing = [Keys.ambientCurve.key, Keys.ambientHysteresisPct.key, Keys.ambientIntervalMs.key, Keys.ambientSysfsRoot.key]
            if let stray = needing.first(where: { reader.document[$0] != nil }) {
                throw reader.error(stray, "needs brightness.ambient_sensor (the light sensor's IIO name) or brightness.ambient_device to say which sensor")
            }
            return nil
        }
        var sensor = AmbientLightSensor.Settings(device: device, name: name)
        if let milliseconds = try Keys.ambientIntervalMs.read(reader) { sensor.interval = .milliseconds(milliseconds) }
        sensor.sysfsRoot = try Keys.ambientSysfsRoot.read(reader) ?? sensor.sysfsRoot
        var curve = AmbientBrightness(points: defaultCurve)
        if let texts = try Keys.ambientCurve.read(reader) {
            guard !texts.isEmpty else {
                throw reader.error(Keys.ambientCurve.key, "needs at least one point \"LUX:PERCENT\", such as [\"0:20\", \"100:70\", \"500:100\"]")
            }
            var points: [AmbientBrightness.Point] = []
            for text in texts {
                guard let point = AmbientBrightness.point(text) else {
                    throw reader.error(Keys.ambientCurve.key, "each point is \"LUX:PERCENT\" (lux from 0, percent of the state's level from 0 to 100), got \"\(text)\"")
                }
                guard point.scale > 0 else {
                    throw reader.error(Keys.ambientCurve.key, "\"\(text)\" would turn the backlight off in that light; the lowest percent is 1 (auto-brightness never turns the panel off: quiet hours and dim do that with a level of 0)")
                }
                if let last = points.last, point.lux <= last.lux {
                    throw reader.error(Keys.ambientCurve.key, "points must rise in lux, got \"\(text)\" after \(last.lux) lx")
                }
                points.append(point)
            }
            curve.points = points
        }
        if let percent = try Keys.ambientHysteresisPct.read(reader) { curve.hysteresis = Double(percent) / 100 }
        return AmbientSettings(sensor: sensor, curve: curve)
    }
}
