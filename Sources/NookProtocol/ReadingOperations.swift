import NookActivities

/// The operations that read what nookd shows: its status, the subscriptions (until the client
/// goes) and the glass as a picture.
public struct ReadingOperations: Sendable {
    typealias Row = NookOperation.Row

    public let status = Row<Void>(.status, answer: StatusAnswer.self, command: .subcommand, reads: true, answerBytes: 16 << 10, .status)

    /// Every activity event until the client goes (Q13).
    public let watch = Row<Void>(.watch, answer: WatchAnswer.self, command: .subcommand, reads: true, .watch)

    public let snapshot = Row<Void>(.snapshot, answer: SnapshotAnswer.self, command: .subcommand, reads: true, .snapshot)

    /// Every press of an input (E8), for bridges that map the buttons onto their clients' keys.
    public let inputs = Row<Void>(.inputs, answer: InputsAnswer.self, command: .bridgesOnly, reads: true, .inputs)

    /// Every LaMetric icon id nookd found in no icon directory (M3), for an icon fetcher (nook-http's).
    public let iconsWanted = Row<Void>(.iconsWanted, answer: IconsWantedAnswer.self, command: .bridgesOnly, reads: true, .iconsWanted)

    /// The glass as a PNG with its generation (V1): at once, or once the glass shows a frame
    /// newer than `after` (bounded by ``NookProtocol/frameWaitSeconds``).
    public let frame = Row<Int?>(
        .frame, fields: ["after"], answer: FrameAnswer.self, command: .named("screenshot"),
        // A frame's PNG as a card's usually is.
        reads: { _ in true }, answerBytes: { _ in 512 << 10 },
        make: { .frame(after: $0) },
        decode: { reader throws(ProtocolError) in
            // A generation is a count of frames: whole, from 0, exact in a JSON number.
            guard let after = try reader.number("after") else { return nil }
            guard after >= 0, after <= 9_007_199_254_740_992, after == after.rounded() else {
                throw ProtocolError(.invalid, field: "after", "must be a frame generation (a whole number from 0), got \(after)")
            }
            return Int(after)
        },
        encode: { $0.map { [("after", .number(Double($0)))] } ?? [] })
}
