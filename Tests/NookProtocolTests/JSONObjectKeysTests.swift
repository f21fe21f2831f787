import NookProtocol
import Testing

/// C3: an object's keys are found as well in a large object (past the members compared one by
/// one, where they are indexed) as in a small one: a key twice is refused, or, where a sender's
/// own server takes the last (AWTRIX), its last value taken and the key named once.
@Suite("C3 JSON objects, small and large")
struct JSONObjectKeysTests {
    static func object(_ count: Int, then extra: String) -> [UInt8] {
        Array(("{" + (0..<count).map { "\"k\($0)\": \($0)" }.joined(separator: ", ") + extra + "}").utf8)
    }

    @Test(arguments: [3, 16, 17, 40, 8000])
    func c3_aKeyTwiceIsFoundInAnObjectOfAnySize(members: Int) throws {
        // The repeated key is the first: in a large object it was indexed before its repeat.
        let twice = Self.object(members, then: ", \"k0\": -1")
        #expect(throws: JSONError.self) { try JSONValue.parse(twice) }
        let (kept, duplicates) = try JSONValue.parseKeepingLast(Self.object(members, then: ", \"k0\": -1, \"k0\": -2, \"k1\": -3"))
        #expect(duplicates == ["k0", "k1"])
        #expect(kept["k0"] == .number(-2) && kept["k1"] == .number(-3) && kept["k\(members - 1)"] == .number(Double(members - 1)))
        guard case .object(let keys) = kept else { Issue.record("not an object"); return }
        #expect(keys.count == members && keys.first?.0 == "k0", "the repeated key keeps its first place")
        // No key twice: every member, in order.
        let plain = try JSONValue.parse(Self.object(members, then: ""))
        guard case .object(let all) = plain else { Issue.record("not an object"); return }
        #expect(all.map(\.0) == (0..<members).map { "k\($0)" })
    }
}
