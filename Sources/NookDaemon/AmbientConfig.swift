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

    static let keys = ["ambient_sensor", "ambient_device", "ambient_curve", "ambient_hysteresis_pct", "ambient_interval_ms", "ambient_sysfs_root"]

    /// nil without `brightness.ambient_sensor` or `ambient_device`; the other keys without
    /// either are a mistake, not a quiet no-op.
    static func reading(_ reader: ConfigReader) throws(ConfigError) -> AmbientSettings? {
        let name = try reader.string("brightness.ambient_sensor")
        let device = try reader.string("brightness.ambient_device")
        guard name != nil || device != nil else {
            if let stray = keys.dropFirst(2).first(where: { reader.document["brightness.\($0)"] != nil }) {
                throw reader.error("brightness.\(stray)", "needs brightness.ambient_sensor (the light sensor's IIO name) or brightness.ambient_device to say which sensor")
            }
            return nil
        }
        var sensor = AmbientLightSensor.Settings(device: device, name: name)
        if let milliseconds = try reader.integer("brightness.ambient_interval_ms", in: 100...60_000) { sensor.interval = .milliseconds(milliseconds) }
        sensor.sysfsRoot = try reader.string("brightness.ambient_sysfs_root") ?? sensor.sysfsRoot
        var curve = AmbientBrightness(points: defaultCurve)
        if let texts = try reader.strings("brightness.ambient_curve") {
            guard !texts.isEmpty else {
                throw reader.error("brightness.ambient_curve", "needs at least one point \"LUX:PERCENT\", such as [\"0:20\", \"100:70\", \"500:100\"]")
            }
            var points: [AmbientBrightness.Point] = []
            for text in texts {
                guard let point = AmbientBrightness.point(text) else {
                    throw reader.error("brightness.ambient_curve", "each point is \"LUX:PERCENT\" (lux from 0, percent of the state's level from 0 to 100), got \"\(text)\"")
                }
                guard point.scale > 0 else {
                    throw reader.error("brightness.ambient_curve", "\"\(text)\" would turn the backlight off in that light; the lowest percent is 1 (auto-brightness never turns the panel off: quiet hours and dim do that with a level of 0)")
                }
                if let last = points.last, point.lux <= last.lux {
                    throw reader.error("brightness.ambient_curve", "points must rise in lux, got \"\(text)\" after \(last.lux) lx")
                }
                points.append(point)
            }
            curve.points = points
        }
        if let percent = try reader.integer("brightness.ambient_hysteresis_pct", in: 0...100) { curve.hysteresis = Double(percent) / 100 }
        return AmbientSettings(sensor: sensor, curve: curve)
    }
}
