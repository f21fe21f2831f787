import NookSystem

/// What AWTRIX's `stats` says of the device that nookd does not know: the host's uptime, its
/// available memory, its name (AWTRIX's `uid`) and its first IPv4 address. Read from /proc and
/// the kernel (NookSystem's ``HostFacts``) at each request: a value that cannot be read is 0 or
/// empty, as the docs say.
public struct AWTRIXHost: Sendable, Equatable {
    public var uptime: Int
    public var availableMemory: Int
    public var name: String
    public var address: String

    public init(uptime: Int, availableMemory: Int, name: String, address: String) {
        (self.uptime, self.availableMemory, self.name, self.address) = (uptime, availableMemory, name, address)
    }

    public static func read() -> AWTRIXHost {
        AWTRIXHost(uptime: HostFacts.uptime(), availableMemory: HostFacts.availableMemory(), name: (try? System.hostName()) ?? "nook",
                   address: HostFacts.firstIPv4Address())
    }
}
