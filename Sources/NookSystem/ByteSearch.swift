import Glibc

/// Finding a run of bytes in a line: `memchr` for its first byte, then `memcmp`.
///
/// `Collection.firstRange(of:)` would do, but it is generic code in `_StringProcessing` that is
/// never specialised for bytes: it dominated the round trip of a large `history` answer
/// (`history_query_ms`), and it runs on every answer nookctl reads.
public enum ByteSearch {
    /// The offset of the first occurrence of `needle` in `haystack`, or nil.
    public static func firstOffset(of needle: [UInt8], in haystack: UnsafeRawBufferPointer) -> Int? {
        guard let first = needle.first, let base = haystack.baseAddress, haystack.count >= needle.count else {
            return needle.isEmpty ? 0 : nil
        }
        let lastStart = haystack.count - needle.count
        var offset = 0
        return needle.withUnsafeBytes { needleBytes -> Int? in
            while offset <= lastStart {
                guard let hit = memchr(base + offset, Int32(first), lastStart - offset + 1) else { return nil }
                let candidate = base.distance(to: UnsafeRawPointer(hit))
                if memcmp(base + candidate, needleBytes.baseAddress!, needle.count) == 0 { return candidate }
                offset = candidate + 1
            }
            return nil
        }
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs in these bytes (see ``ByteSearch``).
    public func contains(bytes needle: [UInt8]) -> Bool {
        withUnsafeBytes { ByteSearch.firstOffset(of: needle, in: $0) != nil }
    }
}

extension ArraySlice where Element == UInt8 {
    /// Whether `needle` occurs in these bytes (see ``ByteSearch``).
    public func contains(bytes needle: [UInt8]) -> Bool {
        withUnsafeBytes { ByteSearch.firstOffset(of: needle, in: $0) != nil }
    }
}
