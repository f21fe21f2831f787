/// A sender's text quoted back in a warning nookd answers with, which the bridges log and
/// publish (nook-notify's and nook-lcdproc's logs, nook-mqtt's log and `error` topic, the lines
/// of nook-http's AWTRIX `OK`): on one line and bounded. A control, format or separator
/// character is written out (`\u{a}`, `\u{1b}`, `\u{202e}`): quoted as it came, a line break
/// would start a log line the sender wrote, and an escape sequence would act on the terminal
/// of whoever reads the log.
public enum SaidText {
    /// `text` with each such character written out, at most `scalars` Unicode scalars of it
    /// (bounded in what it costs, whatever marks a character carries), then `…` where cut.
    public static func shown(_ text: some StringProtocol, scalars: Int = 40) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(scalars) {
            if isWrittenOut(scalar) { shown += "\\u{\(String(scalar.value, radix: 16))}" } else { shown.unicodeScalars.append(scalar) }
        }
        return text.unicodeScalars.dropFirst(scalars).isEmpty ? shown : shown + "…"
    }

    static func isWrittenOut(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
}
