import Glibc

/// The one owner of an `mmap(2)` mapping, unmapped exactly once when the last reference goes.
/// Sendable as an address: who writes through it, and when, is the user's to serialise.
public final class MemoryMapping: @unchecked Sendable {
    public let address: UnsafeMutableRawPointer
    public let length: Int

    /// `mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset)`: shared, writable
    /// memory of a device (a framebuffer, a DRM dumb buffer).
    public convenience init(sharing fd: FileDescriptor, length: Int, offset: off_t = 0) throws(SystemCallError) {
        try self.init(sharing: fd.rawValue, length: length, offset: offset, name: fd.name)
    }

    /// As above, for a descriptor owned by a C library (libdrm's card) or another owner.
    public init(sharing fd: Int32, length: Int, offset: off_t = 0, name: String) throws(SystemCallError) {
        // MAP_FAILED, not nil, is mmap's failure: mapped to nil for the wrapper.
        address = try systemCall("mmap", subject: name, returning: {
            mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset).flatMap { $0 == MAP_FAILED ? nil : $0 }
        })
        self.length = length
    }

    deinit { _ = try? systemCall("munmap", { munmap(address, length) }) }
}
