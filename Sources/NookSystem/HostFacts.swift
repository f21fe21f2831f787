#if canImport(Glibc)
import Glibc
#endif

/// What the host is, as /proc and the kernel say it: its uptime, its available memory and its
/// address (AWTRIX's `stats` report them). A value that cannot be read is 0 or empty.
public enum HostFacts {
    private static func text(_ path: String) -> String {
        (try? readRegularFile(path, limit: 64 * 1024)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// `/proc/uptime`'s first number, whole seconds.
    public static func uptime() -> Int {
        Double(text("/proc/uptime").split(separator: " ").first ?? "").map { Int($0) } ?? 0
    }

    /// `MemAvailable` of `/proc/meminfo`, in bytes (AWTRIX gives its free heap in bytes).
    public static func availableMemory() -> Int {
        let line = text("/proc/meminfo").split(separator: "\n").first { $0.hasPrefix("MemAvailable:") }
        let kibibytes = line?.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        return (kibibytes ?? 0) * 1024
    }

    /// The first IPv4 address of an interface that is up and not loopback.
    public static func firstIPv4Address() -> String {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return "" }
        defer { freeifaddrs(list) }
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            let flags = Int32(current.pointee.ifa_flags)
            guard let socketAddress = current.pointee.ifa_addr, socketAddress.pointee.sa_family == sa_family_t(AF_INET),
                  flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0 else { continue }
            var name = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            let found = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                var raw = inet.pointee.sin_addr
                return inet_ntop(AF_INET, &raw, &name, socklen_t(name.count)) != nil
            }
            if found { return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        }
        return ""
    }
}
