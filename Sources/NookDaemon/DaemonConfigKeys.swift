import NookConfig
import NookRender

extension DaemonConfig {
    /// Every key nook.toml may hold for nookd: the reader reads no other, each one is owned by
    /// a service that applies it at a reload or names it as needing a restart, and nook.toml(5)
    /// documents them. `gpio.*` stands for each `[gpio.NAME]` table. The keys declared as
    /// ``Setting``s come from their services' declarations.
    ///
    /// A list of groups joined once, not a chain of `+`: the type checker of Swift 6.0 gives up
    /// on a chain this long ("unable to type-check this expression in reasonable time").
    public static let keys = ConfigKeyTable(Array(keyGroups.joined()))

    private static let keyGroups: [[String]] = [
        ["socket", "socket_group", "socket_mode", "allowed_uids", "allowed_groups", "admin_group", "relay_users", "icon_directories",
         "journal", "log_level"].map { "daemon." + $0 },
        Service.Socket.settings.map(\.key),
        ["journal.sync"],
        Service.Display.settings.map(\.key) + ["display.rotation"] + Service.Screen.settings.map(\.key),
        Theme.configKeys.map { "theme." + $0 },
        ["home.content", "home.text"],
        Service.Queues.settings.map(\.key) + [Service.RequestSettings.perSender.key],
        (["device", "name"] + proximityKeys).map { "proximity." + $0 },
        LEDSettings.keys.map { "led." + $0 },
        [Service.RequestSettings.pressInputs.key, "debug.hang_display_file"],
        Service.QuietHours.settings.map(\.key),
        Service.Escalation.settings.map(\.key),
        (["backlight", "sysfs_root", "fade_ms"] + BrightnessController.Levels.keys + AmbientSettings.keys).map { "brightness." + $0 },
        Service.Presence.settings.map(\.key),
        Service.History.settings.map(\.key) + Service.Recall.settings.map(\.key),
        Service.Apps.settings.map(\.key),
        GPIOConfig.keys.map { "gpio.*." + $0 },
        TouchConfig.keys.map { "touch." + $0 },
    ]
}

extension BrightnessController.Levels {
    static let keys = ["active", "night", "idle", "quiet", "dim"]
}
