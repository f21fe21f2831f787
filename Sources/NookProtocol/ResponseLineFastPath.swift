/// Reading nookd's lines without parsing all of them: nook-mqtt passes thousands of
/// answers and events a second, and parsing each whole line into a `JSONValue` (to republish an
/// event, or to learn only that an enqueue was accepted) was most of its CPU time. These look
/// at the fixed start nookd's own encoder (`ResponseLine.encoded()`) writes and return nil for
/// anything else, for which a caller falls back to ``ResponseLine/decode(_:)``.
extension ResponseLine {
    /// The start of every event line of the stream `id` asked for: `{"v":1,"id":ID,"event":`,
    /// taken from the encoder itself. Made once per stream, passed to ``eventObject(in:prefix:)``.
    public static func eventLinePrefix(id: RequestID) -> [UInt8] {
        // …"event":null}: all but `null}`.
        Array(Array(ResponseLine.event(id: id, event: .null).encoded().utf8).dropLast(5))
    }

    /// The bytes of the `event` member of an event line: the line is `prefix` (see
    /// ``eventLinePrefix(id:)``), the event object, which is the last member, then `}`.
    public static func eventObject(in line: [UInt8], prefix: [UInt8]) -> ArraySlice<UInt8>? {
        guard line.count > prefix.count + 1, line.last == UInt8(ascii: "}"), line.starts(with: prefix),
              line[prefix.count] == UInt8(ascii: "{") else { return nil }
        return line[prefix.count..<(line.count - 1)]
    }

    /// The id of an accepted request whose answer is `{"v":1,"id":N,"ok":true,…` with N a
    /// whole number (what the bridge's own request ids are); nil for every other line.
    public static func acceptedNumberID<Line: RandomAccessCollection<UInt8>>(in line: Line) -> Double? where Line.Index == Int {
        let start = numberPrefix
        guard line.count > start.count, line.starts(with: start) else { return nil }
        var index = line.startIndex + start.count
        var value = 0.0
        var digits = 0
        while index < line.endIndex, line[index] >= UInt8(ascii: "0"), line[index] <= UInt8(ascii: "9"), digits < 15 {
            value = value * 10 + Double(line[index] - UInt8(ascii: "0"))
            index += 1
            digits += 1
        }
        guard digits > 0 else { return nil }
        let ok = okTrue
        guard line.endIndex >= index + ok.count, line[index..<(index + ok.count)].elementsEqual(ok) else { return nil }
        return value
    }

    private static let numberPrefix: [UInt8] = {
        // `{"v":1,"id":` : the encoder's start up to the id's value.
        let probe = Array(ResponseLine.event(id: .number(7), event: .null).encoded().utf8)
        let marker = Array(#""id":"#.utf8)
        guard let range = probe.firstRange(of: marker) else { return [] }
        return Array(probe[..<range.upperBound])
    }()

    private static let okTrue: [UInt8] = Array(#","ok":true,"#.utf8)
}
