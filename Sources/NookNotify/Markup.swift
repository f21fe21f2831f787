/// The body's markup made plain (we advertise `body-markup`, and the spec lets a server drop
/// the markup it does not draw): tags are removed, the five XML entities and numeric
/// character references are decoded, and whitespace runs (line breaks included: the card's
/// subtitle is one line) become one space. A `<` that does not start a tag stays text, so
/// "I <3 Nook" from a client that did not escape it still reads right.
public enum Markup {
    public static func plainText(_ markup: String) -> String {
        var out = ""
        var scalars = Array(markup.unicodeScalars)[...]
        while let scalar = scalars.first {
            if scalar == "<", let end = tagEnd(scalars) {
                out.unicodeScalars.append(" ")
                scalars = scalars[(end + 1)...]
                continue
            }
            if scalar == "&", let (decoded, length) = entity(scalars) {
                out.unicodeScalars.append(decoded)
                scalars = scalars.dropFirst(length)
                continue
            }
            out.unicodeScalars.append(scalar)
            scalars = scalars.dropFirst()
        }
        return collapsingWhitespace(out)
    }

    /// The index of the `>` closing a tag that starts at `scalars.first` (`<b>`, `</i>`,
    /// `<br/>`, `<a href="…">`), or nil if this `<` is not a tag.
    private static func tagEnd(_ scalars: ArraySlice<Unicode.Scalar>) -> Int? {
        var index = scalars.startIndex + 1
        if index < scalars.endIndex, scalars[index] == "/" { index += 1 }
        guard index < scalars.endIndex, ("a"..."z").contains(scalars[index]) || ("A"..."Z").contains(scalars[index]) else { return nil }
        // A tag ends at the first `>` outside quotes; one left open is not a tag.
        var quote: Unicode.Scalar?
        while index < scalars.endIndex {
            let scalar = scalars[index]
            if let open = quote {
                if scalar == open { quote = nil }
            } else if scalar == "\"" || scalar == "'" {
                quote = scalar
            } else if scalar == ">" {
                return index
            } else if scalar == "<" {
                return nil
            }
            index += 1
        }
        return nil
    }

    private static let named: [String: Unicode.Scalar] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}"]

    /// The character an entity at `scalars.first` stands for and its length with `&` and `;`.
    private static func entity(_ scalars: ArraySlice<Unicode.Scalar>) -> (Unicode.Scalar, Int)? {
        guard let semicolon = scalars.prefix(12).firstIndex(of: ";") else { return nil }
        let name = String(String.UnicodeScalarView(scalars[(scalars.startIndex + 1)..<semicolon]))
        let length = semicolon - scalars.startIndex + 1
        if let scalar = named[name] { return (scalar, length) }
        guard name.hasPrefix("#") else { return nil }
        let digits = name.dropFirst()
        let value = digits.hasPrefix("x") || digits.hasPrefix("X") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
        // NUL is refused by the activity's validation, so it is not produced here either.
        guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }

    static func collapsingWhitespace(_ text: String) -> String {
        var out = ""
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace || scalar.value < 0x20 || scalar.value == 0x7F {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace { out.unicodeScalars.append(" "); pendingSpace = false }
            out.unicodeScalars.append(scalar)
        }
        return out
    }
}
