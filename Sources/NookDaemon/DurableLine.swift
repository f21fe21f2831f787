import NookProtocol

/// One line of a durable log: 8 hexadecimal digits of the CRC32 (IEEE) of the JSON, a space,
/// the JSON and a newline. The journal's records and the history's entries are such lines.
enum DurableLine {
    /// `body` (serialized JSON) as a line.
    static func encoded(_ body: [UInt8]) -> [UInt8] { CRC32.line(body: body) }

    /// The JSON of a line (without its newline) whose checksum holds; the failure says what is
    /// wrong with it (`what`: what the line should have been, for `too short for a record`).
    static func body(of line: some Collection<UInt8>, what: String) -> Result<ArraySlice<UInt8>, JournalDamage> {
        let bytes = Array(line)
        guard bytes.count > 9, bytes[8] == UInt8(ascii: " ") else { return .failure(JournalDamage("too short for \(what)")) }
        let body = bytes[9...]
        guard String(decoding: bytes[..<8], as: UTF8.self) == CRC32.hex(CRC32.checksum(body)) else {
            return .failure(JournalDamage("checksum mismatch"))
        }
        return .success(body)
    }
}
