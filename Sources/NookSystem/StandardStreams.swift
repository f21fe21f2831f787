import Glibc

/// Writes `text` whole to `descriptor` (1 or 2: the C `stdout`/`stderr` globals are not
/// concurrency-safe), through short writes and EINTR. Best effort: a closed, full
/// non-blocking or broken stream loses the rest.
public func writeWhole(_ text: String, to descriptor: Int32) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let chunk = bytes
        guard let written = chunk.withUnsafeBytes({ buffer in
            try? systemCall("write") { write(descriptor, buffer.baseAddress, buffer.count) }
        }), written > 0 else { return }
        bytes = bytes.dropFirst(written)
    }
}
