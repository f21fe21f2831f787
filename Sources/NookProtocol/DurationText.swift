/// A duration as people write one in a setting or an option: digits (a decimal point allowed)
/// and one unit, `90s`, `45m`, `1.5h`, `7d`, `2w`; nothing else (no sign, space, exponent or
/// hexadecimal, which `Double(_:)` would take). A refusal says what is wrong with the text given
/// (no unit, a unit the setting does not take, a fraction, out of range…), quotes it, and ends
/// with the form expected; the caller adds the name of the key, option or field.
public enum DurationText {
    public static let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
    static let unitNames: [Character: String] = ["s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"]

    /// Whether a number with a decimal point is taken.
    public enum Fractions: Sendable {
        /// `1.5d`, `0.5s`.
        case allowed
        /// When the whole is a whole number of seconds: `1.5h` (5400 s), not `90.5s`.
        case wholeSeconds
        /// Whole units only: `90m`, not `1.5h`.
        case refused
    }

    /// Seconds, more than zero, or what is wrong. `allowed` limits the units; `range`, when
    /// given, bounds the seconds.
    public static func seconds(_ text: String, units allowed: String = "smhdw", expected: String = HistoryAge.expected,
                               range: ClosedRange<Double>? = nil, fractions: Fractions = .allowed) -> Result<Double, FieldProblem> {
        func problem(_ what: String) -> Result<Double, FieldProblem> { .failure(FieldProblem("\(what); must be \(expected)")) }
        let quoted = "'\(shown(text))'"
        guard let unit = text.last else { return problem("\(quoted) is empty") }
        if unit.isASCII, unit.isNumber { return problem("\(quoted) has no unit") }
        let number = text.dropLast().utf8
        if number.first == UInt8(ascii: "-") { return problem("\(quoted) is negative") }
        let point = number.firstIndex(of: UInt8(ascii: "."))
        let whole = point.map { number[..<$0] } ?? number[...]
        let fraction = point.map { number[number.index(after: $0)...] }
        func digits(_ part: Substring.UTF8View.SubSequence) -> Bool { !part.isEmpty && part.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }
        guard let scale = units[unit], digits(whole), fraction.map(digits) ?? true else {
            return problem("\(quoted) is not a number and one unit")
        }
        guard allowed.contains(unit) else { return problem("\(quoted) is in \(unitNames[unit] ?? String(unit)), which this does not take") }
        if fractions == .refused, point != nil { return problem("\(quoted) has a fraction") }
        // At most 15 digits before the point: exact in a Double, and far past every range.
        guard whole.count <= 15 else { return problem("\(quoted) is too large") }
        guard let amount = Double(String(text.dropLast())) else { return problem("\(quoted) is not a number and one unit") }
        guard amount > 0 else { return problem("\(quoted) is zero") }
        let seconds = amount * scale
        if let range {
            if seconds < range.lowerBound { return problem("\(quoted) is less than \(written(range.lowerBound, units: allowed))") }
            if seconds > range.upperBound { return problem("\(quoted) is more than \(written(range.upperBound, units: allowed))") }
        }
        if fractions == .wholeSeconds, seconds != seconds.rounded() { return problem("\(quoted) is not a whole number of seconds") }
        return .success(seconds)
    }

    /// `seconds` in the largest of `units` that divides it, such as `24h` or `1m`.
    static func written(_ seconds: Double, units allowed: String) -> String {
        for unit in allowed.compactMap({ unit in units[unit].map { (unit, $0) } }).sorted(by: { $0.1 > $1.1 })
        where seconds >= unit.1 && (seconds / unit.1).rounded() == seconds / unit.1 {
            return "\(Int(seconds / unit.1))\(unit.0)"
        }
        return "\(seconds)s"
    }

    /// The text as a message shows it: at most 40 characters, control characters escaped, so
    /// a value pasted by mistake (a file, a newline) neither floods nor breaks a log line.
    public static func shown(_ text: String) -> String {
        var shown = ""
        for (index, scalar) in text.unicodeScalars.enumerated() {
            if index == 40 { return shown + "…" }
            if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value) || scalar == "'" || scalar == "\\" {
                shown += scalar == "'" ? "\\'" : scalar == "\\" ? "\\\\" : "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }
}
