import Glibc

/// Why a file that was asked for could not be read whole.
public enum FileReadError: Error, Hashable, Sendable, CustomStringConvertible {
    case systemCall(SystemCallError)
    /// A FIFO, a device, a directory or a socket: reading one could block forever or never end.
    case notRegular(path: String, kind: String)
    case tooLarge(path: String, bytes: Int, limit: Int)

    public var description: String {
        switch self {
        case .systemCall(let failure): failure.description
        case .notRegular(let path, let kind): "\(path) is \(kind), not a regular file"
        case .tooLarge(let path, let bytes, let limit): "\(path) is \(bytes) bytes, more than the \(limit) allowed"
        }
    }
}

/// Reads a regular file of at most `limit` bytes whole, without ever blocking on what the
/// path turns out to be: it is opened with `O_NONBLOCK | O_NOCTTY` (a FIFO with no writer
/// would otherwise block `open` itself), then `fstat` must show a regular file no larger
/// than `limit` before a byte is read. A file that grows while it is read is cut at `limit`
/// and refused.
/// `openFlags` adds to those (`O_NOFOLLOW`: a symbolic link fails `open` with ELOOP).
public func readRegularFile(_ path: String, limit: Int, openFlags: Int32 = 0) throws(FileReadError) -> [UInt8] {
    let file: FileDescriptor
    let info: stat
    do throws(SystemCallError) {
        file = try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | openFlags)
        info = try file.status()
    } catch {
        throw .systemCall(error)
    }
    let kind = info.st_mode & S_IFMT
    guard kind == S_IFREG else { throw .notRegular(path: path, kind: fileKind(kind)) }
    guard Int(info.st_size) <= limit else { throw .tooLarge(path: path, bytes: Int(info.st_size), limit: limit) }
    // Reserved by the file's size, not the limit (a 64 MiB limit must not cost 64 MiB for a
    // small file); a file that reports no size (/proc) or grew since fstat is read on in chunks.
    // Each chunk is appended whole (a copy), never a byte at a time through a generic sequence,
    // which a debug build runs element by element (/proc/self/smaps is half a megabyte).
    var bytes: [UInt8] = []
    bytes.reserveCapacity(min(limit, Int(info.st_size)) + 1)
    let chunk = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: limit < 1 << 16 ? limit + 1 : 1 << 16)
    defer { chunk.deallocate() }
    var count = 0
    while count <= limit {
        let wanted = min(chunk.count, limit + 1 - count)
        let read: Int
        do throws(SystemCallError) {
            read = try systemCall("read", subject: path) { Glibc.read(file.rawValue, chunk.baseAddress!, wanted) }
        } catch {
            throw .systemCall(error)
        }
        if read == 0 { break }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[..<read]))
        count += read
    }
    guard count <= limit else { throw .tooLarge(path: path, bytes: count, limit: limit) }
    return bytes
}

/// `a FIFO`, `a directory`, … for a `st_mode & S_IFMT` value, as an error message says it.
public func fileKind(_ format: mode_t) -> String {
    switch format {
    case S_IFIFO: "a FIFO"
    case S_IFDIR: "a directory"
    case S_IFCHR: "a character device"
    case S_IFBLK: "a block device"
    case S_IFSOCK: "a socket"
    case S_IFLNK: "a symbolic link"
    case S_IFREG: "a regular file"
    default: "of an unknown kind"
    }
}
