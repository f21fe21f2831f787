/// `[lametric]` in nook-http's settings: where LaMetric Time's local API is served over TLS
/// (M4), with which certificate, and the name the device gives. Off unless `lametric.listen` is
/// set: LaMetric's clients (`demetriek`, so Home Assistant's `lametric` integration) call
/// `https://HOST:4343`, and the Debian package makes the certificate at install.
public struct LaMetricSettings: Sendable, Equatable {
    public static let defaultCertificate = "/etc/nook/nook-http.crt"
    public static let defaultKey = "/etc/nook/nook-http.key"

    /// Empty: no TLS listener.
    public var listen: [HTTPListenAddress] = []
    public var certificate = defaultCertificate
    public var key = defaultKey
    /// The device's `name` (Home Assistant's device and entity names); nil: the host name.
    public var name: String?

    public init() {}

    /// The certificate and key read, or the start-up error naming the key and the file.
    public func context() throws(HTTPTLSError) -> HTTPTLSContext {
        try HTTPTLSContext(certificate: certificate, key: key,
                           settings: (HTTPConfig.Keys.lametricCertificate.key, HTTPConfig.Keys.lametricKey.key))
    }
}
