import NookActivities

/// The fields several operations' requests share, read as the table's decoders read them.
extension FieldReader {
    /// A request's optional `module`: absent, or a non-empty name.
    func module() throws(ProtocolError) -> String? {
        guard let name = try string("module") else { return nil }
        guard !name.isEmpty else { throw ProtocolError(.invalid, field: "module", "must not be empty") }
        return name
    }

    /// A request's optional `sender`: the name a client that relays others' messages (nook-http's
    /// token names) states it acts for. On an enqueue it is the activity's sender name (U3, U4),
    /// in place of the process name; on the operations that change cards it limits them to that
    /// name's cards (U3). Only the name: nookd takes the uid and pid from the connection.
    func senderName() throws(ProtocolError) -> String? {
        guard let name = try string("sender") else { return nil }
        guard !name.isEmpty, name.utf8.count <= SenderPayload.maximumNameBytes, !name.unicodeScalars.contains(where: Self.isHiddenInAName) else {
            throw ProtocolError(.invalid, field: "sender", "must be a name of 1 to \(SenderPayload.maximumNameBytes) bytes without control or direction-changing characters")
        }
        return name
    }

    /// What a sender's name must not hold: a name is shown to people (history, the log) and
    /// compared byte for byte, so nothing in it may be invisible or reorder what is shown: C0,
    /// DEL and C1 controls, and the bidirectional overrides, embeddings, isolates and marks.
    static func isHiddenInAName(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C, 0xFEFF: true
        default: false
        }
    }

    func historyReference() throws(ProtocolError) -> HistoryReference {
        let text = try requiredString("entry")
        guard let reference = HistoryReference(text) else {
            throw ProtocolError(.invalid, field: "entry", "must be \(HistoryReference.expected), got '\(text)'")
        }
        return reference
    }

    /// An app's `name` (A1), checked as the app's own field is.
    func appName() throws(ProtocolError) -> String {
        let name = try requiredString("name")
        if let problem = NookApp.nameProblem(name) { throw ProtocolError(.invalid, field: "name", problem) }
        return name
    }
}
