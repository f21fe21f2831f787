/// A random (version 4) UUID identifying one activity, made without Foundation.
///
/// Its text form is the usual lowercase `8-4-4-4-12` hexadecimal spelling, which is what the
/// socket protocol and `nookctl` print and accept.
public struct NookActivityID: Hashable, Sendable, Codable, CustomStringConvertible {
    public let high: UInt64
    public let low: UInt64

    /// A fresh random identifier from the system's random source (through
    /// ``IDRandomness``: a pool when the process installed a bulk source).
    public init() {
        let (first, second) = IDRandomness.nextPair()
        self.init(randomWords: first, second)
    }

    /// A random identifier drawn from `generator` (tests pass a seeded one for stable ids).
    public init<G: RandomNumberGenerator>(using generator: inout G) {
        let first = generator.next()
        self.init(randomWords: first, generator.next())
    }

    private init(randomWords first: UInt64, _ second: UInt64) {
        // RFC 9562: version nibble 4, variant bits 10.
        high = (first & ~0xF000) | 0x4000
        low = (second & ~(0xC000 << 48)) | (0x8000 << 48)
    }

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Parses the `8-4-4-4-12` hexadecimal form, upper or lower case; nil if malformed.
    /// Byte by byte: every request that names an activity parses one.
    public init?(_ text: String) {
        guard let (high, low) = Self.parse(text.utf8) else { return nil }
        self.init(high: high, low: low)
    }

    /// The same for a substring. (`String` has its own initializer: called from another
    /// module, this generic one runs unspecialised, which shows when decoding a history answer.)
    public init?(_ text: some StringProtocol) {
        guard let (high, low) = Self.parse(text.utf8) else { return nil }
        self.init(high: high, low: low)
    }

    private static func parse(_ bytes: some Sequence<UInt8>) -> (high: UInt64, low: UInt64)? {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var length = 0
        var digits = 0
        for byte in bytes {
            defer { length += 1 }
            if length == 8 || length == 13 || length == 18 || length == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            let value: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            guard digits < 32 else { return nil }
            if digits < 16 { high = high << 4 | UInt64(value) } else { low = low << 4 | UInt64(value) }
            digits += 1
        }
        guard length == 36, digits == 32 else { return nil }
        return (high, low)
    }

    /// The hash that sets and dictionaries of ids use. An enqueue goes through a dozen of them
    /// (the queue's index, the ids being enqueued, history, recall), and the standard
    /// library's SipHash of two words (its seeding and finalisation) is a visible share of nookd's
    /// time under a flood of enqueues. This is one 64×64→128-bit multiply of the two words, as the
    /// multiply-mix hashes of hash tables do, keyed by a secret drawn at random once per process
    /// and by the table's seed. Clients choose ids, and the table's seed alone is not secret
    /// (the standard library derives it from the table's address; SipHash adds its own per-process
    /// secret, which this override bypasses), so the secret is what keeps a client from computing
    /// ids that all land in one bucket. `==` compares the same two words, as a hash must.
    public func _rawHashValue(seed: Int) -> Int {
        Self.hash(high: high, low: low, secret: Self.hashSecret, table: UInt64(UInt(bitPattern: seed)))
    }

    /// ``_rawHashValue(seed:)`` under a given secret (tests try many).
    static func hash(high: UInt64, low: UInt64, secret: (UInt64, UInt64), table: UInt64) -> Int {
        let product = (high ^ secret.0 ^ table).multipliedFullWidth(by: low ^ (secret.1 &+ table &* 0x9E37_79B9_7F4A_7C15))
        // The product's low bits depend only on the factors' low bits, and its high bits change
        // slowly with ids counted 1, 2, 3…: a finaliser (MurmurHash3's) spreads both over the
        // bits a table takes its bucket from (without it, ids counted through left buckets
        // empty under some secrets).
        var mixed = product.high ^ product.low
        mixed = (mixed ^ (mixed >> 33)) &* 0xFF51_AFD7_ED55_8CCD
        mixed = (mixed ^ (mixed >> 33)) &* 0xC4CE_B9FE_1A85_EC53
        return Int(truncatingIfNeeded: mixed ^ (mixed >> 33))
    }

    /// Drawn once, on first use, from the system's random source.
    private static let hashSecret: (UInt64, UInt64) = {
        var system = SystemRandomNumberGenerator()
        return (system.next(), system.next())
    }()

    public var description: String {
        // Written nibble by nibble into one buffer: ids are formatted for every answer and event.
        String(unsafeUninitializedCapacity: 36) { buffer in
            var written = 0
            for nibble in 0..<32 {
                if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
                    buffer[written] = UInt8(ascii: "-")
                    written += 1
                }
                let word = nibble < 16 ? high : low
                let value = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * (nibble % 16))) & 0xF
                buffer[written] = value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
                written += 1
            }
            return written
        }
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
