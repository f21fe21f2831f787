#if canImport(Glibc)
import Glibc
#endif

/// Random bytes from the kernel's generator, many per call (nookd draws 4 KiB at a time for its
/// activity ids; see `IDRandomness`).
public enum SystemRandom {
    /// Fills `buffer` entirely: glibc's `arc4random_buf`, which since 2.36 asks `getrandom(2)`
    /// for the whole buffer (resuming after a signal or a short read) and keeps nothing itself.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        arc4random_buf(base, buffer.count)
    }
}
