#if canImport(Glibc)
import Glibc
#endif

import NookSystem
import NookTestSupport
import Testing

/// A beeper that is a FIFO, and its reader. A beeper plays in real time, where alsa-lib's `file`
/// PCM writes a minute of samples at once: a long note still sounds when the test acts on it,
/// whatever the machine's load. The reader is opened first, so the output's non-blocking open
/// finds one.
struct BeeperFIFO {
    /// Kept, so the FIFO outlives every use of the beeper.
    let scratch: Scratch
    let path: String
    let reader: FileDescriptor

    init(in scratch: Scratch) throws {
        self.scratch = scratch
        path = scratch.path + "/beeper"
        try #require(mkfifo(path, 0o600) == 0, "mkfifo \(path): errno \(errno)")
        reader = try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK)
    }

    /// The SND_TONE values written until `done` says stop, waiting up to the bound for each read.
    func tones(until done: ([Int32]) -> Bool) throws -> [Int32] {
        var tones: [Int32] = [], pending: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 4096)
        while !done(tones) {
            var entry = pollfd(fd: reader.rawValue, events: Int16(POLLIN), revents: 0)
            try #require(try System.poll(&entry, timeoutMilliseconds: Int32(TestBounds.duration(.seconds(30)) / .milliseconds(1))) == 1,
                         "no tone within the bound; read \(tones)")
            guard let count = try buffer.withUnsafeMutableBytes({ try reader.readIfReady(into: $0) }), count > 0 else { continue }
            pending += buffer[..<count]
            let whole = pending.count / InputEvent.size * InputEvent.size
            tones += pending[..<whole].withUnsafeBytes { InputEvent.decode($0) }.filter { $0.type == 0x12 }.map(\.value)
            pending.removeFirst(whole)
        }
        return tones
    }
}
