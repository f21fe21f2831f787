import NookActivities

/// AWTRIX 3's device requests (M1), the routes and topics beyond its apps and notifications:
/// what the clock answers and what Nook does for each, shared by nook-http and nook-mqtt so
/// both say the same. A request Nook carries out, or whose asked state already holds, is
/// AWTRIX's `OK`; one Nook does not carry out says so and what Nook does instead, never a 404
/// or a silent drop.
public enum AWTRIXDevice {
    /// The requests that change the device, by their last path segment or topic level.
    public enum Request: String, Sendable, CaseIterable {
        case power, sleep, sound, rtttl, moodlight, indicator1, indicator2, indicator3, settings
        case reboot, doupdate, erase, resetSettings, sendscreen

        /// What an answer calls it: the screen, whether asked for over HTTP or MQTT.
        public var label: String { self == .sendscreen ? "screen" : rawValue }
    }

    public enum Outcome: Sendable, Equatable {
        /// The board is as asked: AWTRIX's `OK`, with what was read otherwise than sent (a key
        /// given twice).
        case done(remarks: [String] = [])
        /// Nothing was done; each line names what was asked and what Nook does instead.
        case notDone([String])
    }

    /// AWTRIX's effects Nook draws behind an app: none (an app's `effect` is named as ignored).
    public static let effects: [String] = []
    /// AWTRIX's transitions Nook makes between apps: it slides.
    public static let transitions = ["Slide"]
    /// What `stats` and `settings` give as the firmware's version.
    public static let version = "nook-1.0"

    /// Why a request is not carried out, and what Nook does instead.
    static func instead(_ request: Request) -> String {
        switch request {
        case .power, .sleep: "switched by nookd (nookctl display)"
        case .sound, .rtttl: "played by nookd"
        case .moodlight: "drawn by nookd"
        case .indicator1, .indicator2, .indicator3: "drawn by nookd"
        case .settings: "Nook's settings are nook.toml's"
        case .reboot: "a Nook board is not rebooted over the API: an admin restarts nookd with systemctl restart nookd"
        case .doupdate: "a Nook board is not updated over the API: its Debian packages are (apt upgrade)"
        case .erase: "a Nook board is not erased over the API: its settings are /etc/nook/nook.toml"
        case .resetSettings: "a Nook board's settings are not reset over the API: they are /etc/nook/nook.toml"
        case .sendscreen: "Nook sends no 32x8 screen: the glass is a PNG at GET /api/v1/frame and in the live view (/live)"
        }
    }

    /// What `request` with `body` does on a board whose status is `status` (nil when nookd's
    /// status cannot be read), or the field that cannot be read.
    public static func outcome(_ request: Request, body: [UInt8], status: StatusAnswer?) throws(ProtocolError) -> Outcome {
        switch request {
        case .power, .sleep, .settings:
            // Carried out by nookd's `display`: the bridges send ``display(_:body:status:)``'s
            // setting and say its answer (``outcome(of:_:)``). Without that answer, only what
            // asks nothing of the display is done.
            let part = try display(request, body: body, status: status)
            return part.asksNothing ? outcome(of: nil, part) : .notDone(part.remarks + ["\(request.label): not carried out without nookd"])
        case .moodlight:
            // Carried out by nookd's `home`: the bridges send ``moodLight(body:)``'s setting, read
            // here as they read it (a body that cannot be read is refused the same way).
            return .done(remarks: try moodLight(body: body).remarks)
        case .indicator1, .indicator2, .indicator3:
            // Carried out by nookd: the bridges send ``indicator(_:body:)``'s setting, read here
            // as they read it (a body that cannot be read is refused the same way).
            return .done(remarks: try indicator(request.indicatorNumber ?? 1, body: body).remarks)
        case .sound, .rtttl:
            // Played by nookd: the bridges send ``sound(_:body:)``'s request and say its answer
            // (``outcome(of:for:remarks:)``); read here as they read it.
            let (asked, remarks) = try sound(request, body: body)
            return asked == nil ? .notDone(remarks + [nothingToPlay(request)]) : .done(remarks: remarks)
        case .reboot, .doupdate, .erase, .resetSettings, .sendscreen:
            return .notDone(["\(request.label): \(instead(request))"])
        }
    }

    static func flag(_ value: JSONValue, field: String) throws(ProtocolError) -> Bool {
        switch value {
        case .bool(let flag): return flag
        case .number(let number): return number != 0
        case .string(let text):
            // Only the words AWTRIX's own clients send: anything else (`on`, `yes`) is no flag a
            // board should guess at, when guessing wrong switches its display off.
            if let flag = plainFlag(text) { return flag }
            throw ProtocolError(.invalid, field: field, "must be true or false (or 1 or 0), got \"\(AWTRIXApp.shown(text))\"")
        default: throw ProtocolError(.wrongType, field: field, "must be true or false, got \(value.typeName)")
        }
    }

    /// `true`, `1`, `false` or `0`, whatever their case; nil for anything else.
    static func plainFlag(_ text: String) -> Bool? {
        switch text.trimmingWhitespace.lowercased() {
        case "true", "1": true
        case "false", "0": false
        default: nil
        }
    }

    /// Whether indicator `number` is lit on the glass.
    static func lit(_ number: Int, _ status: StatusAnswer?) -> Bool {
        status?.indicators?.first { $0.number == number }?.color != nil
    }

    /// The display is lit: switched on, and not off for want of anyone in the room.
    static func matrixOn(_ status: StatusAnswer?) -> Bool { status?.presence?.state != "away" && status?.display.on != false }

    /// The brightness on AWTRIX's scale, 0–255: the one set, else what would keep the glass as
    /// it is (``StatusAnswer/Brightness/percent``), so that writing it back changes nothing.
    public static func brightness(_ status: StatusAnswer?) -> Int {
        guard let brightness = status?.brightness else { return 255 }
        if let set = brightness.percentSet ?? brightness.percent { return min(255, max(0, Int((Double(set) * 255 / 100).rounded()))) }
        guard brightness.maximum > 0 else { return 255 }
        return min(255, max(0, brightness.level * 255 / brightness.maximum))
    }

    /// What AWTRIX calls the app on the glass: the app's name, `Notification` for a card,
    /// `Time` for the clock, else the home content's name.
    static func app(_ status: StatusAnswer?) -> String {
        guard let status else { return "" }
        if let showing = status.apps?.showing { return showing }
        if status.modules.contains(where: { $0.current != nil }) { return "Notification" }
        return status.home == "clock" ? "Time" : status.home
    }

    /// AWTRIX's `stats`: what Nook knows from nookd's status and the host, and for what a Nook
    /// board has no sensor of (battery, temperature, humidity, Wi-Fi) a neutral value the
    /// docs name (docs/awtrix-device.md).
    public static func stats(status: StatusAnswer?, host: AWTRIXHost) -> JSONValue {
        func number(_ value: Int) -> JSONValue { .number(Double(value)) }
        return .object([
            ("bat", number(100)), ("bat_raw", number(0)), ("type", number(0)),
            ("lux", number(Int((status?.brightness?.lux ?? 0).rounded()))), ("ldr_raw", number(0)),
            ("ram", number(host.availableMemory)), ("bri", number(brightness(status))),
            ("temp", number(0)), ("hum", number(0)), ("uptime", number(host.uptime)), ("wifi_signal", number(0)),
            ("messages", number(0)), ("version", .string(version)),
            ("indicator1", .bool(lit(1, status))), ("indicator2", .bool(lit(2, status))), ("indicator3", .bool(lit(3, status))),
            ("app", .string(app(status))), ("uid", .string(host.name)), ("matrix", .bool(matrixOn(status))),
            ("ip_address", .string(host.address)),
        ])
    }

    /// `stats` without what changes by itself (the uptime, the free memory): two alike say
    /// nothing changed on the board.
    public static func changes(in stats: JSONValue) -> JSONValue {
        guard case .object(let members) = stats else { return stats }
        return .object(members.filter { $0.0 != "uptime" && $0.0 != "ram" })
    }
}
