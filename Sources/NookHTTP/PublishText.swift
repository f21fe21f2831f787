import NookActivities
import NookProtocol

/// Text as publishing senders send it, made fit for a card: whitespace collapsed, Markdown
/// marks dropped where the sender says the text is Markdown, RFC 2047 header words decoded,
/// and cut to the card's limits with a note instead of being refused.
enum PublishText {
    /// Runs of whitespace (line breaks too) become one space; the ends are trimmed.
    static func collapsed(_ text: some StringProtocol) -> String {
        text.whitespaceCollapsed
    }

    /// A 400 naming `field` when `text` holds a NUL, which nookd's protocol cannot carry: said
    /// here, before nookd is asked, rather than passed on as nookd's refusal of the whole line.
    static func refuseNUL(_ text: String?, field: String) throws(HTTPAPIError) {
        guard let text, text.utf8.contains(0) else { return }
        throw HTTPAPIError(status: 400, code: "invalid_field", field: field, message: "holds a NUL character (U+0000), which a card cannot carry")
    }

    /// A sender's value as an error message echoes it: at most 64 characters.
    static func quoted(_ text: String) -> String {
        text.count <= 64 ? text : String(text.prefix(64)) + "…"
    }

    /// A message without a title: its first non-empty line is the title and the rest the
    /// subtitle, as a phone shows a one-line notification.
    static func titleAndSubtitle(title: String?, message: String) -> (title: String, subtitle: String?) {
        if let title = title.map(collapsed), !title.isEmpty {
            let body = collapsed(message)
            return (title, body.isEmpty ? nil : body)
        }
        let lines = self.lines(of: message).map(collapsed).filter { !$0.isEmpty }
        guard let first = lines.first else { return ("", nil) }
        let rest = lines.dropFirst().joined(separator: " ")
        return (first, rest.isEmpty ? nil : rest)
    }

    /// The lines of `text` that are not empty. ASCII text is split as bytes (its line breaks are
    /// LF, VT, FF and CR), other text by characters, which is costly.
    static func lines(of text: String) -> [Substring] {
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else { return text.split(whereSeparator: \.isNewline) }
        return text.utf8.split(whereSeparator: { (0x0A...0x0D).contains($0) }).map { Substring($0) }
    }

    /// Cuts `text` to `limit` at a character boundary, noting it.
    static func clamped(_ text: String, to limit: NookTextLimit, what: String, notes: inout [String]) -> String {
        guard let problem = limit.problem(with: text) else { return text }
        notes.append("\(what) \(problem): cut to fit")
        return limit.clamped(text)
    }

    /// The card's title and subtitle, each cut to fit.
    static func fitted(title: String, subtitle: String?, notes: inout [String]) -> (String, String?) {
        (clamped(title, to: NookActivity.Limits.title, what: "title", notes: &notes),
         subtitle.map { clamped($0, to: NookActivity.Limits.subtitle, what: "message", notes: &notes) })
    }

    /// Markdown as a phone renders it, as plain text: emphasis, code and heading marks are
    /// dropped, a link keeps its text, an image its alternative text, a list item its words.
    static func plainMarkdown(_ text: String) -> String {
        var lines: [String] = []
        // More than a card shows is never read: a link's search for its `]` is then bounded too.
        for rawLine in text.prefix(markdownCharacters).split(separator: "\n", omittingEmptySubsequences: false) {
            var line = Substring(rawLine)
            while let first = line.first, first == " " || first == "\t" { line = line.dropFirst() }
            while line.first == "#" { line = line.dropFirst() }
            if line.first == ">" { line = line.dropFirst() }
            if line.hasPrefix("- ") || line.hasPrefix("* ") || line.hasPrefix("+ ") { line = line.dropFirst(2) }
            if line.allSatisfy({ $0 == "-" || $0 == "*" || $0 == "_" || $0 == " " }) && line.count >= 3 { continue }
            if line.hasPrefix("```") { continue }
            lines.append(inlineMarkdown(String(line)))
        }
        return lines.joined(separator: "\n")
    }

    /// Twice what a card's title and subtitle hold together.
    static let markdownCharacters = 2 * (NookActivity.Limits.titleCharacters + NookActivity.Limits.subtitleCharacters)

    private static func inlineMarkdown(_ line: String) -> String {
        var output = ""
        var characters = Array(line)
        var index = 0
        // Images and links: `![alt](url)` and `[text](url)` keep their text.
        while index < characters.count {
            let character = characters[index]
            if character == "\\", index + 1 < characters.count {
                output.append(characters[index + 1])
                index += 2
                continue
            }
            let isImage = character == "!" && index + 1 < characters.count && characters[index + 1] == "["
            if character == "[" || isImage {
                let open = isImage ? index + 1 : index
                if let close = characters[open...].firstIndex(of: "]"), close + 1 < characters.count, characters[close + 1] == "(",
                   let end = characters[(close + 1)...].firstIndex(of: ")") {
                    output += String(characters[(open + 1)..<close])
                    index = end + 1
                    continue
                }
            }
            if character == "*" || character == "_" || character == "`" || character == "~" {
                // Emphasis marks go; a lone `_` inside a word (snake_case) stays.
                let previous = index > 0 ? characters[index - 1] : " "
                let next = index + 1 < characters.count ? characters[index + 1] : " "
                if character == "_", previous.isLetter || previous.isNumber, next.isLetter || next.isNumber {
                    output.append(character)
                }
                index += 1
                continue
            }
            output.append(character)
            index += 1
        }
        characters.removeAll()
        return output
    }

    /// Decodes RFC 2047 encoded words (`=?UTF-8?B?…?=`, `=?UTF-8?Q?…?=`), which ntfy accepts in
    /// any header for senders whose HTTP library cannot send UTF-8 there. Anything else,
    /// including a word in another charset, is left as it is.
    static func decodedHeader(_ value: String) -> String {
        guard value.contains("=?") else { return value }
        var output = ""
        var rest = Substring(value)
        var previousWasWord = false
        while let start = encodedWordStart(in: rest) {
            let before = rest[..<start]
            let afterStart = rest[rest.index(start, offsetBy: 2)...]
            let parts = afterStart.split(separator: "?", maxSplits: 3, omittingEmptySubsequences: false)
            guard parts.count == 4, parts[3].hasPrefix("="),
                  parts[0].lowercased() == "utf-8",
                  let decoded = decodeWord(encoding: parts[1], text: parts[2]) else {
                output += rest[..<afterStart.startIndex]
                rest = afterStart
                previousWasWord = false
                continue
            }
            // Whitespace between two encoded words is not part of the text (RFC 2047 6.2).
            if !(previousWasWord && before.allSatisfy({ $0.isWhitespace })) { output += before }
            output += decoded
            rest = parts[3].dropFirst()
            previousWasWord = true
        }
        output += rest
        return output
    }

    private static func encodedWordStart(in text: Substring) -> Substring.Index? {
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(after: index)
            if text[index] == "=", next < text.endIndex, text[next] == "?" { return index }
            index = next
        }
        return nil
    }

    private static func decodeWord(encoding: Substring, text: Substring) -> String? {
        switch encoding.lowercased() {
        case "b":
            guard let bytes = Base64.decode(String(text)) else { return nil }
            return String(validating: bytes, as: UTF8.self)
        case "q":
            var bytes: [UInt8] = []
            var index = text.utf8.startIndex
            let utf8 = text.utf8
            while index < utf8.endIndex {
                let byte = utf8[index]
                if byte == UInt8(ascii: "_") {
                    bytes.append(0x20)
                } else if byte == UInt8(ascii: "="), let high = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex), high < utf8.endIndex,
                          let low = utf8.index(high, offsetBy: 1, limitedBy: utf8.endIndex), low < utf8.endIndex,
                          let value = UInt8(String(decoding: [utf8[high], utf8[low]], as: UTF8.self), radix: 16) {
                    bytes.append(value)
                    index = low
                } else {
                    bytes.append(byte)
                }
                index = utf8.index(after: index)
            }
            return String(validating: bytes, as: UTF8.self)
        default:
            return nil
        }
    }

    /// A stable 64-bit FNV-1a digest in hexadecimal: keys made from a sender's long identity
    /// (Alertmanager's group key) stay short and the same across restarts.
    static func digest(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
