extension StringProtocol {
    /// Runs of whitespace (line breaks too) as one space, the ends trimmed: how a sender's text
    /// becomes a card's one-line title, whichever way it came in.
    public var whitespaceCollapsed: String {
        // ASCII text (nearly every title) is read as bytes: its characters are its bytes, but
        // for "\r\n", which is whitespace either way. Splitting it into characters is costly.
        if case let collapsed?? = utf8.withContiguousStorageIfAvailable(asciiWhitespaceCollapsed) { return collapsed }
        return split(whereSeparator: { $0.isWhitespace || $0.isNewline }).joined(separator: " ")
    }
}

/// ``StringProtocol/whitespaceCollapsed`` of text that is all ASCII, or nil when a byte is not.
/// ASCII's whitespace is tab, line feed, vertical tab, form feed, carriage return and space
/// (Unicode's White_Space).
private func asciiWhitespaceCollapsed(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    var collapsed: [UInt8] = []
    collapsed.reserveCapacity(bytes.count)
    var spacePending = false
    for byte in bytes {
        guard byte < 0x80 else { return nil }
        if byte == 0x20 || (0x09...0x0D).contains(byte) {
            spacePending = !collapsed.isEmpty
            continue
        }
        if spacePending {
            collapsed.append(0x20)
            spacePending = false
        }
        collapsed.append(byte)
    }
    return String(decoding: collapsed, as: UTF8.self)
}
