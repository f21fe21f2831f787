#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookConfig
import NookSystem

/// `struct ucred` as Linux lays it out for `SO_PEERCRED` (Swift's Glibc module hides the
/// `_GNU_SOURCE` declaration).
struct LinuxPeerCredentials {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// Who is on the other end of a connection (`SO_PEERCRED`).
public struct PeerCredentials: Hashable, Sendable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    /// The process's name (`/proc/PID/comm`) when the connection was accepted, for the
    /// history's sender (U4); nil if it could not be read.
    public var name: String?
    public var description: String { "pid \(pid) uid \(uid) gid \(gid)" }

    public init(pid: Int32, uid: UInt32, gid: UInt32, name: String? = nil) {
        (self.pid, self.uid, self.gid, self.name) = (pid, uid, gid, name)
    }

    /// Who sent an activity on this connection (U3).
    var sender: NookSender { NookSender(uid: uid, pid: pid, name: name) }

    /// The peer of a connected Unix socket, as the kernel recorded it at `connect` time.
    static func of(_ socket: FileDescriptor) throws(SystemCallError) -> PeerCredentials {
        var credentials = LinuxPeerCredentials()
        try System.socketOption(socket.rawValue, SOL_SOCKET, SO_PEERCRED, into: &credentials, name: "SO_PEERCRED", subject: socket.name)
        var name: String?
        if credentials.pid > 0, let comm = try? readRegularFile("/proc/\(credentials.pid)/comm", limit: 64) {
            name = String(decoding: comm, as: UTF8.self).split(separator: "\n").first.map(String.init)
        }
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid, name: name)
    }
}

/// Which peers may connect (C4): root and the daemon's own user always; otherwise everyone
/// who can open the socket (its mode and group decide), unless an allow-list is set.
public struct AccessPolicy: Sendable {
    public var allowedUIDs: Set<UInt32>
    public var allowedGIDs: Set<UInt32>
    /// User names that are members of an allowed group (from the group database).
    public var allowedMembers: Set<String>

    public init(uids: [UInt32] = [], groups: [String] = []) throws(SocketError) {
        allowedUIDs = Set(uids)
        allowedGIDs = []
        allowedMembers = []
        for name in groups {
            guard let group = getgrnam(name) else { throw SocketError("allowed group '\(name)' does not exist") }
            allowedGIDs.insert(group.pointee.gr_gid)
            var member = group.pointee.gr_mem
            while let name = member?.pointee {
                allowedMembers.insert(String(cString: name))
                member = member?.successor()
            }
        }
    }

    var isOpen: Bool { allowedUIDs.isEmpty && allowedGIDs.isEmpty }

    func allows(_ peer: PeerCredentials) -> Bool {
        if isOpen || peer.uid == 0 || peer.uid == geteuid() { return true }
        if allowedUIDs.contains(peer.uid) || allowedGIDs.contains(peer.gid) { return true }
        if let name = userName(of: peer.uid) { return allowedMembers.contains(name) }
        return false
    }
}
