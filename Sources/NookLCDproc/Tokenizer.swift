/// LCDd 0.5.9's command-line splitter (`server/parse.c`), reproduced rule for rule so every
/// client that works with LCDd is read the same way here:
///
/// - Arguments are separated by space, tab or carriage return outside quotes.
/// - `"…"` and `{…}` quote; only the kind that opened closes (`{a"b}` is one argument `a"b`),
///   braces do not nest, and a quote may open in the middle of an argument (`ab"c d"` is
///   `abc d`). A closing quote always ends the argument: `"ab"cd` is two arguments, and `""`
///   is one empty argument.
/// - A backslash escapes the next byte anywhere, quoted or not: `\n`, `\r`, `\t` become those
///   control characters, any other byte stands for itself.
/// - A line ending inside a quote, or with a lone backslash, or with more than 39 arguments,
///   is refused as a whole (LCDd answers `huh? Could not parse command`).
public enum LCDTokenizer {
    /// LCDd's `MAX_ARGUMENTS` is 40, one slot of which holds the terminating NULL.
    public static let maximumArguments = 39

    /// The arguments of one line (its terminator already removed), as bytes: LCDd is 8-bit
    /// clean, and what the bytes mean is decided later (see ``LCDText``). Nil when LCDd
    /// could not parse the line. An empty array for a line of blanks (LCDd then answers
    /// `huh? Invalid command "(null)"`).
    public static func split(_ line: some Collection<UInt8>) -> [[UInt8]]? {
        var arguments: [[UInt8]] = []
        var current: [UInt8] = []
        var inArgument = false
        var quote: UInt8 = 0
        var iterator = line.makeIterator()

        func finish() -> Bool {
            guard arguments.count < maximumArguments else { return false }
            arguments.append(current)
            current.removeAll(keepingCapacity: true)
            inArgument = false
            return true
        }

        while true {
            // A NUL ends the line for LCDd (it is a C string), as does the end of the bytes.
            guard let byte = iterator.next(), byte != 0, byte != 0x0A else {
                if inArgument {
                    guard quote == 0, finish() else { return nil }
                }
                return arguments
            }
            if !inArgument {
                if isBlank(byte) { continue }
                inArgument = true
            }
            if byte == 0x5C {  // backslash
                guard let escaped = iterator.next(), escaped != 0, escaped != 0x0A else { return nil }
                switch escaped {
                case UInt8(ascii: "n"): current.append(0x0A)
                case UInt8(ascii: "r"): current.append(0x0D)
                case UInt8(ascii: "t"): current.append(0x09)
                default: current.append(escaped)
                }
            } else if quote == 0, byte == 0x22 || byte == 0x7B {  // " or {
                quote = byte
            } else if (quote == 0x7B && byte == 0x7D) || (quote == 0x22 && byte == 0x22) {
                quote = 0
                guard finish() else { return nil }
            } else if quote == 0, isBlank(byte) {
                guard finish() else { return nil }
            } else {
                current.append(byte)
            }
        }
    }

    static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D }
}

/// How LCDd cuts a client's byte stream into lines (`shared/sring.c`, `client_add_message`):
/// a line ends at `\n`, `\r` or a NUL byte, and empty lines are dropped (so `\r\n` is one
/// terminator). Unlike LCDd, a line split across two reads is kept whole (LCDd drops the
/// partial line left at the end of a read), and a line longer than ``maximumLineBytes`` is
/// dropped whole and reported once (LCDd's ring would have split it into garbage).
public struct LCDLineFramer: Sendable {
    /// LCDd reads into an 8 KiB ring (`MAXMSG`); nothing longer ever reaches its parser.
    public static let defaultMaximumLineBytes = 8191

    public enum Item: Equatable, Sendable {
        case line([UInt8])
        /// A line that ran past the limit: dropped whole, reported once.
        case tooLong
    }

    public let maximumLineBytes: Int
    private var partial: [UInt8] = []
    private var skippingOverlong = false

    public init(maximumLineBytes: Int = defaultMaximumLineBytes) {
        self.maximumLineBytes = maximumLineBytes
    }

    /// Bytes held for a line not yet ended.
    public var pendingBytes: Int { partial.count }

    /// Feeds bytes as they were read; returns the lines they complete, in order.
    public mutating func append(_ bytes: some Collection<UInt8>, into items: inout [Item]) {
        for byte in bytes {
            if byte == 0x0A || byte == 0x0D || byte == 0 {
                if skippingOverlong {
                    skippingOverlong = false
                } else if !partial.isEmpty {
                    items.append(.line(partial))
                }
                partial.removeAll(keepingCapacity: true)
                continue
            }
            if skippingOverlong { continue }
            if partial.count == maximumLineBytes {
                items.append(.tooLong)
                partial.removeAll(keepingCapacity: false)
                skippingOverlong = true
                continue
            }
            partial.append(byte)
        }
    }
}

/// Text from a client: UTF-8 where the bytes are valid UTF-8 (LCDd is 8-bit only; Nook draws
/// any script), else ISO 8859-1, which is what an 8-bit LCDproc client means by its bytes.
/// The bytes of such text are kept as they came (each byte from 0x80 as a private-use scalar),
/// so an id is echoed back in `listen`, `key` or an error byte for byte, as LCDd echoes it, and
/// two ids are the same only if their bytes are; ``display(_:)`` gives the text to draw.
public enum LCDText {
    static let keptBase: UInt32 = 0xF700

    static func isKept(_ scalar: Unicode.Scalar) -> Bool { (keptBase + 0x80...keptBase + 0xFF).contains(scalar.value) }

    public static func decode(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self), !text.unicodeScalars.contains(where: isKept) { return text }
        var scalars = String.UnicodeScalarView()
        for byte in bytes { scalars.append(byte < 0x80 ? Unicode.Scalar(byte) : Unicode.Scalar(keptBase + UInt32(byte))!) }
        return String(scalars)
    }

    /// The bytes that `text` (from ``decode(_:)``) came as: UTF-8, each kept byte as itself.
    public static func encode(_ text: String, into bytes: inout [UInt8]) {
        // Kept scalars are U+F780–U+F7FF, whose UTF-8 starts with 0xEF.
        guard text.utf8.contains(0xEF) else { return bytes.append(contentsOf: text.utf8) }
        for scalar in text.unicodeScalars {
            if isKept(scalar) { bytes.append(UInt8(scalar.value - keptBase)) } else { UTF8.encode(scalar) { bytes.append($0) } }
        }
    }

    /// `text` to draw: kept bytes as ISO 8859-1.
    public static func display(_ text: String) -> String {
        guard text.utf8.contains(0xEF) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { scalars.append(isKept(scalar) ? Unicode.Scalar(UInt8(scalar.value - keptBase)) : scalar) }
        return String(scalars)
    }
}
