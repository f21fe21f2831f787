import Glibc
import NookSystem

/// TCP ports on 127.0.0.1 for servers the tests start (mosquitto, LCDd, nook-lcdproc).
///
/// A port handed out here is free only at that moment: another test's server bound to port 0,
/// or a client's outgoing connection, can take it before the server binds it. A caller starts
/// its server again on another port when the server exits at start, and takes a server for
/// ready only when ``isListening(pid:port:)`` says the server itself listens there: a connect
/// alone can reach whichever process got the port.
public enum LoopbackPort {
    /// A port nobody listens on right now: the kernel's choice for port 0.
    public static func unused() throws -> Int {
        let descriptor = FileDescriptor(
            owning: try System.socket(AF_INET, SOCK_STREAM, flags: SOCK_CLOEXEC.rawValue),
            name: "a probe for an unused port")
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                try System.bind(descriptor.rawValue, generic, length, subject: "127.0.0.1:0")
                try System.socketName(descriptor.rawValue, generic, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether process `pid` holds a socket listening on `port` of 127.0.0.1 or of every IPv4
    /// address: `/proc/net/tcp`'s listening entry for it, and a descriptor of the process
    /// naming that socket's inode. A process that changed to another user keeps its
    /// descriptors from a root without CAP_SYS_PTRACE (a container's); then the socket's owner
    /// must be that user, which holds only for a server that changes user before it binds.
    /// Started by root, a server is best kept root (LCDd's `User=root`, mosquitto's `user root`).
    public static func isListening(pid: Int32, port: Int) -> Bool {
        guard let table = try? tcpTable(port: port) else { return false }
        let local = Set(["0100007F", "00000000"].map { $0 + ":" + hex(port) })
        let sockets: [(inode: String, uid: String)] = table.entries
            .filter { local.contains($0.address) && $0.state == "0A" }
            .map { ("socket:[\($0.inode)]", $0.uid) }
        guard !sockets.isEmpty else { return false }
        // Root without CAP_SYS_PTRACE may list the descriptors of a process that changed user
        // but not read them: then, as when it cannot list them, the socket's owner decides. A
        // list that reads whole but has no such socket (a process that exited has none) is no.
        if let descriptors = try? directoryEntries("/proc/\(pid)/fd") {
            var refused = false
            var targets: [String] = []
            for descriptor in descriptors {
                switch linkTarget("/proc/\(pid)/fd/\(descriptor)") {
                case .success(let target): targets.append(target)
                case .failure(let error): refused = refused || error.errno == .permissionDenied || error.errno == .notPermitted
                }
            }
            let inodes = Set(sockets.map(\.inode))
            if targets.contains(where: inodes.contains) { return true }
            if !refused { return false }
        }
        guard let status = try? readRegularFile("/proc/\(pid)/status", limit: 1 << 20),
              let uids = String(decoding: status, as: UTF8.self).split(separator: "\n").first(where: { $0.hasPrefix("Uid:") })?
                .split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst(),
              let effective = uids.dropFirst().first, effective != "0" else { return false }
        return sockets.contains { $0.uid == effective }
    }

    /// What a test that waited in vain for ``isListening(pid:port:)`` reports: the listening
    /// entries `/proc/net/tcp` has for `port` (owner and inode), and the sockets among the
    /// process's descriptors, or why they could not be read.
    public static func explain(pid: Int32, port: Int) -> String {
        let table: (lines: Int, entries: [TCPEntry])
        do throws(FileReadError) { table = try tcpTable(port: port) } catch {
            return "/proc/net/tcp could not be read: \(error)"
        }
        let entries = table.entries.map { "\($0.address) state \($0.state) uid \($0.uid) inode \($0.inode)" }
        var descriptors = "its descriptors: "
        do throws(SystemCallError) {
            let names = try directoryEntries("/proc/\(pid)/fd")
            let targets = names.map { name -> String in
                switch linkTarget("/proc/\(pid)/fd/\(name)") {
                case .success(let target): return target
                case .failure(let error): return "\(name): \(error)"
                }
            }
            descriptors += targets.filter { !$0.hasPrefix("/") }.joined(separator: ", ")
        } catch {
            descriptors += "\(error)"
        }
        return "/proc/net/tcp (\(table.lines) lines) on port \(port): \(entries.isEmpty ? "nothing" : entries.joined(separator: "; ")); \(descriptors); "
            + "listening now: \(isListening(pid: pid, port: port))"
    }

    /// Bytes that arrived on the connections a server on `port` accepted and that it has not
    /// read yet (the receive queues of the port's established sockets), or nil when
    /// `/proc/net/tcp` cannot be read: 0 once the server has read every byte sent to it.
    public static func unreadBytes(port: Int) -> Int? {
        guard let table = try? tcpTable(port: port) else { return nil }
        return table.entries.filter { $0.state == "01" }.reduce(0) { $0 + $1.unread }
    }

    /// ``unreadBytes(port:)`` of only the connections from `clients` (the ports the clients'
    /// ends have): what other processes' sockets on the port hold is not counted.
    public static func unreadBytes(port: Int, from clients: Set<Int>) -> Int? {
        guard let table = try? tcpTable(port: port) else { return nil }
        let ports = Set(clients.map(hex))
        return table.entries.filter { entry in
            entry.state == "01" && entry.remote.split(separator: ":").last.map { ports.contains(String($0)) } == true
        }.reduce(0) { $0 + $1.unread }
    }

    /// One line of `/proc/net/tcp`: the local address (`0100007F:1F90`), the state (`0A` is
    /// listening, `01` established), the owner's uid, the socket's inode and the bytes in its
    /// receive queue.
    struct TCPEntry {
        var address: String
        /// The other end's address (`0100007F:9C40`).
        var remote = ""
        var state: String
        var uid: String
        var inode: String
        var unread = 0
    }

    /// `/proc/net/tcp`'s entries on `port`, any address, and how many lines it had.
    private static func tcpTable(port: Int) throws(FileReadError) -> (lines: Int, entries: [TCPEntry]) {
        let lines = String(decoding: try readRegularFile("/proc/net/tcp", limit: 64 << 20), as: UTF8.self).split(separator: "\n")
        let suffix = ":" + hex(port)
        let entries = lines.dropFirst().compactMap { line -> TCPEntry? in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 9, fields[1].hasSuffix(suffix) else { return nil }
            // `tx_queue:rx_queue`, in hexadecimal.
            let unread = fields[4].split(separator: ":").last.flatMap { Int($0, radix: 16) } ?? 0
            return TCPEntry(address: String(fields[1]), remote: String(fields[2]), state: String(fields[3]), uid: String(fields[7]), inode: String(fields[9]), unread: unread)
        }
        return (lines.count, entries)
    }

    /// `port` as `/proc/net/tcp` writes it: four upper-case hexadecimal digits.
    private static func hex(_ port: Int) -> String {
        let digits = String(port, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// What the symbolic link at `path` names, or why it cannot be read.
    private static func linkTarget(_ path: String) -> Result<String, SystemCallError> {
        Result { () throws(SystemCallError) in try System.linkTarget(path) }
    }
}
