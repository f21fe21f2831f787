/// CRC-32 (IEEE 802.3, the zlib one), table-driven: the check on every line of nookd's journal
/// and history files (`CRC32 JSON\n`).
public enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    public static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        // The table is read through a local buffer: touching the static inside the loop went
        // through its lazy initialiser's check on every byte (a third of the journal writer's
        // time in a burst).
        table.withUnsafeBufferPointer { table in
            var crc: UInt32 = 0xFFFF_FFFF
            let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
                for byte in buffer { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
            }
            if done == nil {
                for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
            }
            return crc ^ 0xFFFF_FFFF
        }
    }

    public static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// `json` as one checked line: 8 hex digits of its CRC, a space, the JSON, a newline.
    public static func line(_ json: JSONValue) -> [UInt8] {
        line(body: json.serializedBytes)
    }

    /// `body` (serialized JSON) as one checked line.
    public static func line(body: [UInt8]) -> [UInt8] {
        Array(hex(checksum(body)).utf8) + [UInt8(ascii: " ")] + body + [UInt8(ascii: "\n")]
    }
}
