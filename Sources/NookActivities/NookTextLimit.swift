/// A bound on one piece of text in the three units it can be large in: characters (counted as
/// JSON and JSON Schema's `maxLength` count them, in Unicode code points, so every text the
/// OpenAPI file allows is allowed here and every answer matches the file), bytes of UTF-8 (what the wire, memory and the journal
/// hold) and Unicode scalars in one character (what text layout works through: a letter with
/// thousands of combining marks is one character and tens of KiB, and shaping it held nookd's
/// display loop for seconds).
public struct NookTextLimit: Hashable, Sendable, CustomStringConvertible {
    /// Unicode code points (scalars): an accented letter written with a combining mark is two.
    public let characters: Int
    public let bytes: Int

    /// Scalars in one character (grapheme cluster). Unicode's Stream-Safe Text Format (UAX #15)
    /// allows at most 30 combining marks in a row, and the longest emoji sequences (a couple
    /// with two skin tones, a subdivision flag) are 10 scalars: no text in use comes near.
    public static let scalarsPerCharacter = 32

    public init(characters: Int, bytes: Int) {
        precondition(characters >= 1 && bytes >= 4, "a text limit must allow at least one character")
        self.characters = characters
        self.bytes = bytes
    }

    public var description: String { "\(characters) characters, \(bytes) bytes" }

    /// What is wrong with `text`, in the unit whose limit it exceeds; nil when it fits.
    public func problem(with text: String) -> String? {
        problem(with: text, isASCII: !text.utf8.contains { $0 >= 0x80 })
    }

    /// `isASCII`: whether every byte of `text` is below 0x80, when the caller has looked already.
    public func problem(with text: String, isASCII: Bool) -> String? {
        let byteCount = text.utf8.count
        // Every code point is at least one byte: within the limit in bytes is within it in code points.
        if byteCount > characters {
            let count = text.unicodeScalars.count
            if count > characters { return "is \(count) characters (Unicode code points) long; at most \(characters) are allowed" }
        }
        if byteCount > bytes {
            return "is \(byteCount) bytes long in UTF-8; at most \(bytes) are allowed"
        }
        if !isASCII, let (index, scalars) = Self.firstOverlongCharacter(in: text) {
            return "character \(index + 1) is made of \(scalars) Unicode scalars (a letter and its combining marks, or a sequence); at most \(Self.scalarsPerCharacter) are allowed in one character"
        }
        return nil
    }

    /// The first character (0-based) of more than ``scalarsPerCharacter`` scalars, and its count.
    static func firstOverlongCharacter(in text: String) -> (index: Int, scalars: Int)? {
        // Every scalar of a character but its first is outside ASCII (CR LF aside), so only a
        // run of that many non-ASCII scalars can be such a character: graphemes are counted
        // only then.
        var run = 0, longest = 0
        for scalar in text.unicodeScalars {
            run = scalar.isASCII ? 0 : run + 1
            longest = max(longest, run)
        }
        guard longest >= scalarsPerCharacter else { return nil }
        for (index, character) in text.enumerated() {
            let count = character.unicodeScalars.count
            if count > scalarsPerCharacter { return (index, count) }
        }
        return nil
    }

    /// `text` made to fit: each character cut to its first ``scalarsPerCharacter`` scalars,
    /// and the whole to the limits, ending in "…" where it was cut. For a bridge that must
    /// pass on whatever its source sent.
    public func clamped(_ text: String) -> String {
        guard problem(with: text) != nil else { return text }
        var pieces: [String] = []
        for character in text {
            let scalars = character.unicodeScalars
            guard scalars.count > Self.scalarsPerCharacter else {
                pieces.append(String(character))
                continue
            }
            var kept = String.UnicodeScalarView(scalars.prefix(Self.scalarsPerCharacter))
            // A joiner left at the end would join the next character onto this one.
            while kept.last == "\u{200D}" { kept.removeLast() }
            pieces.append(String(kept))
        }
        let trimmed = pieces.joined()
        if problem(with: trimmed) == nil { return trimmed }
        let ellipsis = "…"
        var result = ""
        var scalars = 0
        for piece in pieces {
            let pieceScalars = piece.unicodeScalars.count
            guard scalars + pieceScalars + 1 <= characters, result.utf8.count + piece.utf8.count + ellipsis.utf8.count <= bytes else { break }
            result += piece
            scalars += pieceScalars
        }
        result += ellipsis
        // Joined pieces can form other characters than they were; cut further until it fits.
        while problem(with: result) != nil, result.count > 1 {
            result.removeLast(2)
            result += ellipsis
        }
        return result
    }
}
