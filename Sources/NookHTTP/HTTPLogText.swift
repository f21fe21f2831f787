/// Text a client sent, as nook-http's log shows it: a line break or other control character in
/// a path, a query parameter's name or a sender's field would otherwise start a line of its own
/// in the journal, one the client wrote.
enum HTTPLogText {
    /// `text` with every C0 and C1 control character and DEL escaped (`\n`, `\u{1B}`).
    static func escaped(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return String(text) }
        var shown = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) { shown += scalar.escaped(asASCII: true) } else { shown.unicodeScalars.append(scalar) }
        }
        return shown
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
