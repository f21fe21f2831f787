import Glibc

/// Files a client names that nookd reads with its own privileges (R3's icons, B2's sounds): only
/// those inside the directories nook.toml names, after `realpath(3)` resolves `..` and symbolic
/// links, so a link out of the directory is outside it; the file itself is then read with
/// ``readRegularFile(_:limit:openFlags:)`` and `O_NOFOLLOW`, so a FIFO, a device or a file
/// swapped for a link since is refused, never read.
public enum ConfinedPath {
    /// Whether `path` is `directory` or under it; both canonical (``canonical(_:)``).
    public static func isInside(_ path: String, _ directory: String) -> Bool {
        path == directory || path.hasPrefix(directory == "/" ? "/" : directory + "/")
    }

    /// `realpath(3)` of `path`, or nil.
    public static func canonical(_ path: String) -> String? { try? System.resolvedPath(path) }
}

extension FileReadError {
    /// What is wrong with the file, without its path (the line that says it names it already):
    /// `no such file`, `is a symbolic link` (read with `O_NOFOLLOW`), `is a FIFO, not a regular
    /// file`, `is 40000000 bytes, more than the 33554432 allowed`.
    public func problem(followingSymlinks: Bool) -> String {
        switch self {
        case .systemCall(let call):
            let plain = SystemCallError(call.call, errno: call.errno)
            switch (call.call, call.errno) {
            case ("open", .tooManySymbolicLinkLevels) where !followingSymlinks: return "is a symbolic link"
            case ("open", .noSuchFileOrDirectory): return "no such file"
            case ("open", .permissionDenied): return "nookd may not read it: \(plain)"
            default: return plain.description
            }
        case .notRegular(_, let kind): return "is \(kind), not a regular file"
        case .tooLarge(_, let bytes, let limit): return "is \(bytes) bytes, more than the \(limit) allowed"
        }
    }
}
