import NookConfig
import NookInput

/// `[gpio.NAME]` tables of nookd's config (SPEC I1): one GPIO input each.
///
///     [gpio.button]
///     line = "NOOK_BUTTON"      # or chip = "gpiochip0" and offset = 17
///     role = "open"             # hover | open | dismiss | presence
///     active_low = true
///     bias = "pull-up"
enum GPIOConfig {
    static let keys = ["role", "mode", "line", "chip", "offset", "active_low", "bias", "debounce_ms"]

    /// The inputs in file order, and the table names they use.
    static func lines(from reader: ConfigReader) throws(ConfigError) -> [GPIOLineSettings] {
        var names: [String] = []
        for (key, entry) in reader.document.entries where key.hasPrefix("gpio.") {
            let parts = key.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3 else {
                throw ConfigError(source: reader.document.source, line: entry.line, key: key,
                                  message: "GPIO inputs go in tables of their own, such as [gpio.button] with role = \"open\"")
            }
            if !names.contains(String(parts[1])) { names.append(String(parts[1])) }
        }
        var lines: [GPIOLineSettings] = []
        for name in names {
            let table = "gpio." + name
            guard let roleName = try reader.choice(table + ".role", among: GPIOLineSettings.Role.allCases.map(\.rawValue)) else {
                throw reader.error(table + ".role", "is required: hover, open, dismiss or presence")
            }
            let lineName = try reader.string(table + ".line")
            let chip = try reader.string(table + ".chip")
            let offset = try reader.integer(table + ".offset", in: 0...4095)
            switch (lineName, chip, offset) {
            case (_?, _, _?):
                throw reader.error(table + ".offset", "give either line (a name) or chip and offset, not both")
            case (nil, nil, _?):
                throw reader.error(table + ".offset", "needs chip = \"gpiochipN\" (or the chip's label) to say which chip")
            case (nil, _, nil):
                throw reader.error(table + ".line", "is required (a gpio-line-names name), or chip and offset")
            default:
                break
            }
            var settings = GPIOLineSettings(name: name, role: GPIOLineSettings.Role(rawValue: roleName)!, chip: chip, offset: offset, lineName: lineName)
            if let mode = try reader.choice(table + ".mode", among: GPIOLineSettings.OpenMode.allCases.map(\.rawValue)) {
                guard settings.role == .open else { throw reader.error(table + ".mode", "applies only to role = \"open\"") }
                settings.openMode = GPIOLineSettings.OpenMode(rawValue: mode)!
            }
            settings.activeLow = try reader.bool(table + ".active_low") ?? false
            if let bias = try reader.choice(table + ".bias", among: GPIOLineSettings.Bias.allCases.map(\.rawValue)) {
                settings.bias = GPIOLineSettings.Bias(rawValue: bias)!
            }
            if let milliseconds = try reader.integer(table + ".debounce_ms", in: 0...1000) { settings.debounce = .milliseconds(milliseconds) }
            lines.append(settings)
        }
        return lines
    }
}

extension GPIOLineSettings {
    /// The line as its `[gpio.*]` table says, without the long press copied in from
    /// `history.recall_hold_ms`: a reload compares these to tell which key changed.
    var withoutLongPress: GPIOLineSettings {
        var settings = self
        settings.longPressAfter = nil
        return settings
    }
}
