/// A reading as the kernel's IIO core prints it in sysfs (`iio_format_value`): an integer
/// (`IIO_VAL_INT`, `IIO_VAL_INT_64`) or a decimal with up to nine fraction digits
/// (`IIO_VAL_INT_PLUS_MICRO` `1.500000`, `IIO_VAL_INT_PLUS_NANO` and `IIO_VAL_FRACTIONAL`
/// `64.000000000`, negative as `-0.500000`).
///
/// Held exactly, in billionths, so a threshold compares without rounding: every value the IIO
/// core prints from 32-bit parts fits (2^31 × 10^9 < 2^63).
public struct IIOValue: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let nanos: Int64

    public init(nanos: Int64) { self.nanos = nanos }

    /// A whole number of the sensor's units, such as a configured threshold.
    public init(_ units: Int) { nanos = Int64(units) * 1_000_000_000 }

    /// Parses one value; nil for anything the IIO core does not print (empty, `+1`, `1e3`,
    /// `0x10`, `1.`, `.5`, several values, more than nine fraction digits, out of range).
    public init?(parsing text: some StringProtocol) {
        var bytes = Substring(text).utf8[...]
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes = bytes.dropFirst() }
        let integerDigits = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard !integerDigits.isEmpty else { return nil }
        bytes = bytes.dropFirst(integerDigits.count)
        var fractionDigits = bytes.prefix(0)
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            fractionDigits = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            guard !fractionDigits.isEmpty, fractionDigits.count <= 9 else { return nil }
            bytes = bytes.dropFirst(fractionDigits.count)
        }
        guard bytes.isEmpty else { return nil }
        var magnitude: Int64 = 0
        for digit in integerDigits {
            let (shifted, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (added, overflow2) = shifted.addingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            magnitude = added
        }
        let (whole, overflow) = magnitude.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return nil }
        var fraction: Int64 = 0
        for (index, digit) in fractionDigits.enumerated() {
            var place: Int64 = 100_000_000
            for _ in 0..<index { place /= 10 }
            fraction += Int64(digit - UInt8(ascii: "0")) * place
        }
        let (total, overflow3) = whole.addingReportingOverflow(fraction)
        guard !overflow3 else { return nil }
        nanos = negative ? -total : total
    }

    public static func < (lhs: IIOValue, rhs: IIOValue) -> Bool { lhs.nanos < rhs.nanos }

    /// The shortest exact decimal: `64`, `64.0625`, `-0.5`.
    public var description: String {
        let magnitude = nanos.magnitude
        var text = (nanos < 0 ? "-" : "") + String(magnitude / 1_000_000_000)
        var fraction = magnitude % 1_000_000_000
        guard fraction != 0 else { return text }
        var digits = 9
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        let fractionText = String(fraction)
        text += "." + String(repeating: "0", count: digits - fractionText.count) + fractionText
        return text
    }
}
