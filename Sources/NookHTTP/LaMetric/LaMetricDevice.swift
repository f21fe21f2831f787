import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// What LaMetric's `GET /api/v2/device` says of the board (M4), as demetriek reads it (every
/// field it requires is there): its name and serial, the display as nookd's status gives it
/// (size, brightness), the sound output and its volume (nook.toml's, not changed over the API), no
/// Bluetooth, and the network as the client reached it.
struct LaMetricDevice {
    /// LaMetric Time's model name, which Home Assistant shows; the sound model `sa5` it tells apart.
    static let model = "LM 37X8"
    var name: String
    var serial: String
    var mac: String

    /// The board's name (`lametric.name`, else the host name), its machine id as the serial,
    /// its first network interface's hardware address.
    static func ofThisBoard(name: String?) -> LaMetricDevice {
        let hostName = (try? System.hostName()) ?? "nook"
        let machine = firstLine("/etc/machine-id").filter(\.isHexDigit)
        let serial = machine.isEmpty ? hostName : String(machine.prefix(16)).uppercased()
        let interfaces = ((try? directoryEntries("/sys/class/net")) ?? []).filter { $0 != "lo" }.sorted()
        let mac = interfaces.lazy.map { firstLine("/sys/class/net/\($0)/address") }.first { !$0.isEmpty && $0 != "00:00:00:00:00:00" }
        return LaMetricDevice(name: name ?? hostName, serial: serial, mac: mac ?? "00:00:00:00:00:00")
    }

    private static func firstLine(_ path: String) -> String {
        guard let bytes = try? readRegularFile(path, limit: 4096) else { return "" }
        return String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)
    }

    /// The whole device, from nookd's `status` answer; `host` is the address the client asked
    /// for (its `Host`), the device's IP as the client knows it.
    func json(status: JSONValue, host: String?) -> JSONValue {
        .object([
            ("id", .string(serial)), ("name", .string(name)), ("serial_number", .string(serial)),
            ("os_version", .string(HTTPCommandLine.versionText.split(separator: " ").last.map(String.init) ?? "1.0")),
            ("mode", .string("auto")), ("model", .string(Self.model)),
            ("audio", Self.audio(status: status)), ("display", Self.display(status: status)), ("wifi", wifi(host: host)),
        ])
    }

    static func range(_ low: Int, _ high: Int) -> JSONValue { .object([("min", .number(Double(low))), ("max", .number(Double(high)))]) }

    /// The brightness as a percentage: the one set over the API (`manual`), else the one that
    /// keeps the glass as it is (`auto`: nook.toml's levels and the room; nookd's `percent`, so
    /// that Home Assistant writing back what it read changes nothing), else the level nookd last
    /// wrote; 100 and `manual` where nookd leaves the brightness alone (no `[brightness]` table).
    static func brightness(status: JSONValue) -> (percent: Int, automatic: Bool) {
        guard let table = status["brightness"], case .object = table else { return (100, false) }
        if let set = table["set"]?.numberValue { return (Int(set.rounded()), false) }
        if let percent = table["percent"]?.numberValue { return (Int(percent.rounded()), true) }
        guard let level = table["level"]?.numberValue, let maximum = table["maximum"]?.numberValue, maximum > 0 else { return (100, false) }
        return (Int((level / maximum * 100).rounded()), true)
    }

    /// The display: its size from the mode nookd names (`HDMI-A-1 1280x400@60.0Hz`, `32x8`), its
    /// brightness (``brightness(status:)``), and `on` unless switched off.
    static func display(status: JSONValue) -> JSONValue {
        let mode = status["display"]?["mode"]?.text ?? ""
        var size = (0, 0)
        for word in mode.split(whereSeparator: { $0 == " " || $0 == "@" }) {
            let parts = word.split(separator: "x")
            if parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) { size = (width, height) }
        }
        let (brightness, automatic) = Self.brightness(status: status)
        let on = status["display"]?["backend"] != nil && status["display"]?["power"]?.text != "off"
        return .object([
            ("brightness", .number(Double(brightness))), ("brightness_mode", .string(automatic ? "auto" : "manual")),
            ("brightness_limit", range(0, 100)), ("brightness_range", range(0, 100)),
            ("width", .number(Double(size.0))), ("height", .number(Double(size.1))), ("type", .string("full_rgb")),
            ("on", .bool(on)), ("screensaver", .object([("enabled", .bool(false))])),
        ])
    }

    /// The sound output (B1) from nookd's `status`: available while one is configured and not
    /// failing, at the volume sounds start from (`sound.volume`, or the one set: `PUT audio`).
    static func audio(status: JSONValue) -> JSONValue {
        let sound = status["sound"]
        let available = sound?["output"]?.text.map { $0 != "none" } == true && sound?["state"]?.text != "unavailable"
        let volume = sound?["volume"]?.numberValue ?? 0
        return .object([("available", .bool(available)), ("volume", .number(volume)), ("volume_limit", range(0, 100)),
                        ("volume_range", range(0, 100))])
    }

    static let bluetooth: JSONValue = .object([
        ("available", .bool(false)), ("active", .bool(false)), ("discoverable", .bool(false)), ("pairable", .bool(false)),
        ("name", .string("")), ("mac", .string("")), ("address", .string("")),
    ])

    /// The network as LaMetric describes its Wi-Fi: the address the client reached (an IPv4
    /// `Host`, else 0.0.0.0), the board's hardware address.
    func wifi(host: String?) -> JSONValue {
        var address = host ?? ""
        if let colon = address.lastIndex(of: ":"), !address.hasPrefix("[") { address = String(address[..<colon]) }
        let ipv4 = TCPListener.family(of: address) == AF_INET ? address : "0.0.0.0"
        return .object([
            ("active", .bool(true)), ("available", .bool(true)), ("address", .string(mac)), ("mac", .string(mac)),
            ("essid", .string("")), ("ip", .string(ipv4)), ("ipv4", .string(ipv4)), ("mode", .string("dhcp")), ("netmask", .string("")),
        ])
    }
}
