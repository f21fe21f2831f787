/// `[icons]` in nook-http's settings (M3): where LaMetric icon ids that nookd finds in no icon
/// directory are fetched from, over HTTPS, and the bounded cache they are kept in. Off unless
/// `icons.source` is set. The cache directory must be one of nookd's `daemon.icon_directories`
/// (`/var/cache/nook-http/icons` is by default); nook-http says so when it is not.
public struct IconSourceSettings: Sendable, Equatable {
    public static let defaultDirectory = "/var/cache/nook-http/icons"

    /// Nil: no fetching.
    public var source: IconSourceURL?
    public var directory = defaultDirectory
    public var maximumCount = HTTPConfig.Keys.iconsMaxCount.defaultValue
    public var maximumBytes = HTTPConfig.Keys.iconsMaxBytes.defaultValue
    /// Each connect, read and write at most; the exchange after the connect four of them.
    public var timeoutSeconds = HTTPConfig.Keys.iconsTimeout.defaultValue

    public init() {}
}

/// `icons.source`: an `https://` URL with `{id}` where the icon's id goes, such as LaMetric's
/// gallery, `https://developer.lametric.com/content/apps/icon_thumbs/{id}`.
public struct IconSourceURL: Sendable, Equatable, CustomStringConvertible {
    /// A DNS name or an IP address (an IPv6 one without its brackets).
    public let host: String
    public let port: UInt16
    /// The path and query, `{id}` in it at least once.
    public let pathTemplate: String
    public let description: String

    /// The URL `text` is, or why it is not one.
    public static func parse(_ text: String) -> Result<IconSourceURL, IconSourceURLError> {
        func refuse(_ why: String) -> Result<IconSourceURL, IconSourceURLError> { .failure(IconSourceURLError(message: why)) }
        guard text.hasPrefix("https://") else {
            return refuse("must be an https:// URL (icons are fetched over TLS only), got \"\(text)\"")
        }
        guard text.contains("{id}") else { return refuse("must hold {id} where the icon's id goes, got \"\(text)\"") }
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || $0.value > 0x7E }) else {
            return refuse("must be a URL without spaces, control or non-ASCII characters (percent-encode them), got \"\(text)\"")
        }
        let rest = text.dropFirst("https://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var path = String(rest.dropFirst(authority.count))
        if path.isEmpty || path.first != "/" { path = "/" + path }
        if let fragment = path.firstIndex(of: "#") { path = String(path[..<fragment]) }
        guard !authority.contains("@") else { return refuse("must not carry a user or password, got \"\(text)\"") }
        var host = Substring(authority), port: UInt16 = 443
        if host.hasPrefix("[") {
            guard let end = host.firstIndex(of: "]") else { return refuse("has an IPv6 address without its ']', got \"\(text)\"") }
            let after = host[host.index(after: end)...]
            host = host[host.index(after: host.startIndex)..<end]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let number = UInt16(after.dropFirst()), number > 0 else { return refuse("has a port that is not 1 to 65535, got \"\(text)\"") }
                port = number
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard let number = UInt16(host[host.index(after: colon)...]), number > 0 else { return refuse("has a port that is not 1 to 65535, got \"\(text)\"") }
            port = number
            host = host[..<colon]
        }
        guard !host.isEmpty, !host.contains("{") else { return refuse("must name a host, got \"\(text)\"") }
        guard path.contains("{id}") else { return refuse("must hold {id} in its path or query, got \"\(text)\"") }
        return .success(IconSourceURL(host: String(host), port: port, pathTemplate: path, description: text))
    }

    private init(host: String, port: UInt16, pathTemplate: String, description: String) {
        (self.host, self.port, self.pathTemplate, self.description) = (host, port, pathTemplate, description)
    }

    /// The path asked for `id` (digits only: nothing to escape).
    public func path(for id: String) -> String { pathTemplate.replacing("{id}", with: id) }

    /// The URL of `id`'s icon, for the log.
    public func url(for id: String) -> String { description.replacing("{id}", with: id) }
}

public struct IconSourceURLError: Error, Equatable, Sendable { public let message: String }
