/// Z2's auto-brightness: the room's light (lux, from ``NookInput/AmbientLightSensor``) scales the
/// `active` and `idle` levels along a few configured points, interpolated in between. Quiet
/// hours, night and dim keep their fixed levels (their precedence is the point of them).
///
/// Hysteresis: once a reading has set the scale, readings within `hysteresis` of it (relative,
/// and at least ``minimumBand`` lux either way, for a dark room where 0 and 1 lx are worlds
/// apart relatively) change nothing, so a lamp flickering around one value, or a reading
/// wobbling across a point of the curve, does not make the display hunt.
struct AmbientBrightness: Hashable, Sendable {
    struct Point: Hashable, Sendable {
        var lux: Double
        /// Of the state's level, 0…1.
        var scale: Double
    }

    /// Ascending in lux, at least one.
    var points: [Point]
    /// Relative, e.g. 0.2: a reading must leave the band of ±20 % around the one that set the scale.
    var hysteresis: Double = 0.2
    /// The band is never narrower than this many lux either way.
    static let minimumBand = 1.0

    /// The scale at `lux`: linear between the points, the end points' beyond them.
    func scale(at lux: Double) -> Double {
        guard let first = points.first, let last = points.last else { return 1 }
        if lux <= first.lux { return first.scale }
        if lux >= last.lux { return last.scale }
        for (low, high) in zip(points, points.dropFirst()) where lux <= high.lux {
            guard high.lux > low.lux else { return high.scale }
            return low.scale + (high.scale - low.scale) * (lux - low.lux) / (high.lux - low.lux)
        }
        return last.scale
    }

    /// Whether `lux` lies outside the hysteresis band around `reference`.
    func leaves(_ reference: Double, for lux: Double) -> Bool {
        let above = max(reference * (1 + hysteresis), reference + Self.minimumBand)
        let below = min(reference / (1 + hysteresis), reference - Self.minimumBand)
        return lux > above || lux < below
    }

    /// Parses one point as the config writes it, `"LUX:PERCENT"` (`"200:80"`: at 200 lx, 80 %
    /// of the state's level); nil when it is not one.
    static func point(_ text: String) -> Point? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        guard parts.count == 2, let lux = Double(parts[0]), lux.isFinite, lux >= 0,
              let percent = Int(parts[1]), (0...100).contains(percent) else { return nil }
        return Point(lux: lux, scale: Double(percent) / 100)
    }
}

/// Where the room's light stands for ``BrightnessController``: the reading that last set the scale.
struct AmbientTracker: Sendable {
    let curve: AmbientBrightness
    /// The reading the scale follows; nil without a reading (no sensor, or it went away).
    private(set) var reference: Double?

    init(curve: AmbientBrightness) { self.curve = curve }

    /// The scale to use now: 1 (the fixed levels) without a reading.
    var scale: Double { reference.map(curve.scale(at:)) ?? 1 }

    /// Takes a reading (nil: the sensor is gone); true when the scale is to change.
    mutating func take(_ reading: Double?) -> Bool {
        guard let reading else {
            defer { reference = nil }
            return reference != nil
        }
        let lux = max(0, reading)
        guard let reference else {
            self.reference = lux
            return true
        }
        guard curve.leaves(reference, for: lux) else { return false }
        self.reference = lux
        return curve.scale(at: lux) != curve.scale(at: reference)
    }
}
