import NookSystem
import Testing

@Suite("ByteSearch: a run of bytes in a line")
struct ByteSearchTests {
    private func offset(_ needle: String, in haystack: String) -> Int? {
        Array(haystack.utf8).withUnsafeBytes { ByteSearch.firstOffset(of: Array(needle.utf8), in: $0) }
    }

    @Test func findsTheFirstOccurrenceWhereverItIs() {
        #expect(offset("\"warning\"", in: "\"warning\":1") == 0)
        #expect(offset("\"warning\"", in: "{\"ok\":true,\"warning\"") == 11)
        #expect(offset("ab", in: "xxabab") == 2)
        // A first byte that matches where the rest does not, right before the real match.
        #expect(offset("aab", in: "aaab") == 1)
        #expect(offset("é", in: "café") == 3)
    }

    @Test func answersNilWhenAbsentOrLongerThanTheLine() {
        #expect(offset("\"warning\"", in: "{\"ok\":true,\"warnin\"}") == nil)
        #expect(offset("abc", in: "ab") == nil)
        #expect(offset("a", in: "") == nil)
        // The needle's first byte is the line's last: the compare must not read past the end.
        #expect(offset("ba", in: "aaab") == nil)
        #expect(offset("", in: "anything") == 0)
    }

    @Test func arraysAndSlicesAnswerAlike() {
        let line = Array("id 7 \"warning\" here".utf8)
        #expect(line.contains(bytes: Array("warning".utf8)))
        #expect(line[0..<8].contains(bytes: Array("warning".utf8)) == false)
        #expect(line[5...].contains(bytes: Array("\"warning\"".utf8)))
    }
}
