extension StringProtocol {
    /// Runs of whitespace (line breaks too) as one space, the ends trimmed: how a sender's text
    /// becomes a card's one-line title, whichever way it came in.
    public var whitespaceCollapsed: String {
        split(whereSeparator: { $0.isWhitespace || $0.isNewline }).joined(separator: " ")
    }
}
