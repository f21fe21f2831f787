/// Text a client sent, as nookd's log shows it: titles, subtitles and keys are the senders' own
/// and may be long (a log carrying every full title grew as fast as the history), so the log
/// keeps at most ``maximumCharacters`` characters and ``maximumBytes`` bytes of each, marked
/// with an ellipsis where cut, with line breaks shown as spaces.
enum LogText {
    static let maximumCharacters = 80
    static let maximumBytes = 240

    static func short(_ text: String) -> String {
        var kept = ""
        var bytes = 0
        var cut = false
        for (index, character) in text.enumerated() {
            let shown: Character = character.isNewline ? " " : character
            let size = String(shown).utf8.count
            if index >= maximumCharacters || bytes + size > maximumBytes - 3 {
                cut = true
                break
            }
            kept.append(shown)
            bytes += size
        }
        return cut ? kept + "…" : kept
    }
}
