/// A random (version 4) UUID identifying one activity, made without Foundation.
///
/// Its text form is the usual lowercase `8-4-4-4-12` hexadecimal spelling, which is what the
/// socket protocol and `nookctl` print and accept.
public struct NookActivityID: Hashable, Sendable, Codable, CustomStringConvertible {
    public let high: UInt64
    public let low: UInt64

    /// A fresh random identifier from the system's random source.
    public init() {
        var generator = SystemRandomNumberGenerator()
        self.init(using: &generator)
    }

    /// A random identifier drawn from `generator` (tests pass a seeded one for stable ids).
    public init<G: RandomNumberGenerator>(using generator: inout G) {
        // RFC 9562: version nibble 4, variant bits 10.
        high = (generator.next() & ~0xF000) | 0x4000
        low = (generator.next() & ~(0xC000 << 48)) | (0x8000 << 48)
    }

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Parses the `8-4-4-4-12` hexadecimal form, upper or lower case; nil if malformed.
    public init?(_ text: some StringProtocol) {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return nil }
        let hex = groups.joined()
        guard hex.utf8.allSatisfy({ $0 < 128 }),
              let high = UInt64(hex.prefix(16), radix: 16),
              let low = UInt64(hex.suffix(16), radix: 16)
        else { return nil }
        self.init(high: high, low: low)
    }

    public var description: String {
        let digits = Self.hex(high, width: 16) + Self.hex(low, width: 16)
        var text = ""
        text.reserveCapacity(36)
        for (index, digit) in digits.enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { text.append("-") }
            text.append(digit)
        }
        return text
    }

    private static func hex(_ value: UInt64, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: width - digits.count) + digits
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = NookActivityID(text) else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "'\(text)' is not a UUID (8-4-4-4-12 hexadecimal digits)"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
