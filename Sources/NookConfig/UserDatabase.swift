#if canImport(Glibc)
import Glibc
#endif

/// The login name of `uid` in the user database (what the names in nookd's and nook-http's
/// settings are checked against); nil if it has none. It lives here, not in NookSystem:
/// nookctl links NookSystem into a static executable, where getpwuid_r needs the glibc of the
/// build at run time and the linker warns. getpwuid_r, not
/// getpwuid: connections are served on several threads at once, and getpwuid's one shared
/// entry lets one look-up read another's user (a peer taken for an admin group's member).
public func userName(of uid: UInt32) -> String? {
    var size = 4096
    while size <= 1 << 20 {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
        defer { buffer.deallocate() }
        let status = getpwuid_r(uid, &entry, buffer, size, &found)
        if status == ERANGE {
            size *= 2
            continue
        }
        guard status == 0, found != nil, let name = entry.pw_name else { return nil }
        return String(cString: name)
    }
    return nil
}
