import NookActivities

/// Freedesktop icon names (the Icon Naming Specification's, and the ones notifying programs
/// use most) and notification categories, mapped to Nook's icon names (R3) and a tint.
public enum FreedesktopIcons {
    public struct Icon: Sendable, Equatable {
        public var symbol: String
        public var tint: NookTint?
    }

    static let names: [String: Icon] = {
        var table: [String: Icon] = [:]
        func add(_ symbol: String, _ tint: NookTint? = nil, _ names: String...) {
            for name in names { table[name] = Icon(symbol: symbol, tint: tint) }
        }
        add("info.circle", .named(.blue), "dialog-information", "info", "help-about")
        add("exclamationmark.triangle", .named(.yellow), "dialog-warning", "warning")
        add("xmark.octagon", .named(.red), "dialog-error", "error", "process-stop", "dialog-error-symbolic")
        add("questionmark.circle", .named(.blue), "dialog-question", "help-browser", "help-contents")
        add("lock", nil, "dialog-password", "system-lock-screen", "changes-prevent", "security-high")
        add("checkmark.circle", .named(.green), "emblem-ok", "emblem-default", "object-select", "dialog-ok", "task-complete")
        add("wifi", .named(.blue), "network-wireless", "network-wireless-connected", "network-wireless-signal-excellent",
            "network-wireless-signal-good", "network-wireless-signal-ok", "network-wireless-signal-weak", "network-wireless-acquiring")
        add("wifi", .named(.gray), "network-wireless-disconnected", "network-wireless-offline", "network-offline", "network-error")
        add("globe", .named(.blue), "network-wired", "network-transmit-receive", "network-idle", "network-workgroup", "applications-internet", "web-browser")
        add("battery.100", .named(.green), "battery-full", "battery-full-charged", "battery-full-charging", "battery-good-charging", "ac-adapter")
        add("battery.75", nil, "battery", "battery-good")
        add("battery.25", .named(.orange), "battery-low", "battery-low-charging", "battery-caution-charging")
        add("battery.0", .named(.red), "battery-caution", "battery-empty", "battery-empty-charging", "battery-missing")
        add("envelope", .named(.blue), "mail-unread", "mail-message-new", "mail-read", "mail-send", "internet-mail", "mail-mark-important")
        add("message", .named(.green), "im-message-new", "internet-group-chat", "user-available", "mail-reply-sender")
        add("phone", .named(.green), "call-start", "call-incoming", "phone")
        add("calendar", .named(.red), "x-office-calendar", "appointment-soon", "appointment-new", "alarm-symbolic")
        add("clock", nil, "appointment-missed", "alarm", "preferences-system-time", "chronometer")
        add("speaker.wave.2", nil, "audio-volume-high", "audio-volume-medium", "audio-volume-low", "audio-volume-muted", "audio-speakers", "multimedia-volume-control")
        add("music.note", .named(.pink), "audio-x-generic", "media-playback-start", "multimedia-player", "applications-multimedia")
        add("pause", nil, "media-playback-pause")
        add("stop", nil, "media-playback-stop")
        add("mic", nil, "audio-input-microphone", "microphone-sensitivity-high")
        add("headphones", nil, "audio-headphones", "audio-headset")
        add("camera", nil, "camera-photo", "camera-web")
        add("video", nil, "camera-video", "video-x-generic")
        add("photo", nil, "image-x-generic")
        add("sun.max", .named(.yellow), "display-brightness", "display-brightness-symbolic", "weather-clear")
        add("moon", .named(.indigo), "weather-clear-night")
        add("cloud", .named(.gray), "weather-overcast", "weather-few-clouds")
        add("umbrella", .named(.blue), "weather-showers", "weather-storm")
        add("snowflake", .named(.cyan), "weather-snow")
        add("arrow.down.circle", .named(.blue), "software-update-available", "system-software-update", "go-down", "document-save", "folder-download", "emblem-downloads")
        add("arrow.up.circle", nil, "go-up", "document-send")
        add("arrow.clockwise", nil, "view-refresh", "system-reboot")
        add("power", .named(.red), "system-shutdown", "system-log-out")
        add("moon", nil, "system-suspend", "system-hibernate")
        add("trash", nil, "user-trash", "user-trash-full", "edit-delete")
        add("folder", nil, "folder", "folder-open", "system-file-manager", "inode-directory")
        add("doc", nil, "text-x-generic", "document-new", "document-open", "x-office-document", "accessories-text-editor")
        add("internaldrive", nil, "drive-harddisk", "drive-removable-media", "media-removable", "drive-multidisk", "media-flash")
        add("cylinder", .named(.teal), "media-optical", "drive-optical", "deja-dup", "org.gnome.DejaDup", "backup")
        add("printer", nil, "printer", "printer-printing", "printer-error")
        add("terminal", nil, "utilities-terminal", "terminal", "org.gnome.Terminal")
        add("hammer", .named(.green), "applications-development", "system-run")
        add("ladybug", .named(.red), "applications-debugging", "bug")
        add("gear", nil, "preferences-system", "applications-system", "emblem-system", "system-settings", "preferences-other")
        add("desktopcomputer", nil, "computer", "video-display", "preferences-desktop-display")
        add("server.rack", nil, "network-server")
        add("person", nil, "avatar-default", "user-info", "system-users", "contact-new")
        add("antenna.radiowaves.left.and.right", .named(.blue), "bluetooth", "bluetooth-active", "preferences-system-bluetooth", "network-cellular", "modem")
        add("shield", .named(.green), "security-medium", "security-low", "system-software-install")
        add("cart", nil, "applications-shopping")
        add("bell", nil, "preferences-desktop-notification", "notification-new", "bell")
        add("bolt", .named(.yellow), "thunderbolt", "power-profile-performance")
        add("thermometer", .named(.orange), "temperature", "sensors-temperature")
        add("house", nil, "go-home", "user-home")
        add("star", .named(.yellow), "starred", "emblem-favorite")
        return table
    }()

    /// Categories of the spec (`device.added`, `email.arrived`, …): the exact name, else its class.
    static let categories: [String: Icon] = [
        "device": Icon(symbol: "internaldrive", tint: nil),
        "device.error": Icon(symbol: "xmark.octagon", tint: .named(.red)),
        "email": Icon(symbol: "envelope", tint: .named(.blue)),
        "email.bounced": Icon(symbol: "exclamationmark.triangle", tint: .named(.orange)),
        "im": Icon(symbol: "message", tint: .named(.green)),
        "im.error": Icon(symbol: "xmark.octagon", tint: .named(.red)),
        "network": Icon(symbol: "wifi", tint: .named(.blue)),
        "network.disconnected": Icon(symbol: "wifi", tint: .named(.gray)),
        "network.error": Icon(symbol: "xmark.octagon", tint: .named(.red)),
        "presence": Icon(symbol: "person", tint: nil),
        "transfer": Icon(symbol: "arrow.down.circle", tint: .named(.blue)),
        "transfer.complete": Icon(symbol: "checkmark.circle", tint: .named(.green)),
        "transfer.error": Icon(symbol: "xmark.octagon", tint: .named(.red)),
        "call": Icon(symbol: "phone", tint: .named(.green)),
        "call.missed": Icon(symbol: "phone", tint: .named(.red)),
        "x-gnome.music": Icon(symbol: "music.note", tint: .named(.pink)),
    ]

    /// An icon name without the variants themes add (`-symbolic`, `-panel`) and the
    /// reverse-DNS or path parts of application icon names.
    static func lookup(_ name: String) -> Icon? {
        if let icon = names[name] { return icon }
        for suffix in ["-symbolic", "-panel"] where name.hasSuffix(suffix) {
            if let icon = names[String(name.dropLast(suffix.count))] { return icon }
        }
        return nil
    }

    /// The icon for a category: the exact one, else its class (`email` for `email.arrived`).
    static func category(_ category: String) -> Icon? {
        if let icon = categories[category] { return icon }
        if let dot = category.firstIndex(of: "."), let icon = categories[String(category[..<dot])] { return icon }
        return nil
    }
}
