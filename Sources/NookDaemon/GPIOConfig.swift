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
    /// The inputs in file order, and the table names they use.
    static func lines(from reader: ConfigReader) throws(ConfigError) -> [GPIOLineSettings] {
        typealias GPIO = Service.Inputs.GPIO
        var names: [String] = []
        for (key, entry) in reader.document.entries where key.hasPrefix("gpio.") {
            let parts = key.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3 else {
                throw ConfigError(source: reader.document.source, line: entry.line, key: key,
                                  message: "GPIO inputs go in tables of their own, such as [gpio.button] with role = \"open\"")
            }
            if !names.contains(String(parts[1])) { names.append(String(parts[1])) }
        }
        // A `[gpio.NAME]` with no key under it is an input that says nothing: its role is missing.
        for (table, _) in reader.document.tables where table.hasPrefix("gpio.") {
            let parts = table.split(separator: ".", omittingEmptySubsequences: false)
            if parts.count == 2, !names.contains(String(parts[1])) { names.append(String(parts[1])) }
        }
        var lines: [GPIOLineSettings] = []
        for name in names {
            let table = "gpio." + name
            guard let roleName = try GPIO.role.named(name).read(reader) else {
                throw reader.error(table + ".role", "is required: hover, open, dismiss or presence")
            }
            let lineName = try GPIO.line.named(name).read(reader)
            let chip = try GPIO.chip.named(name).read(reader)
            let offset = try GPIO.offset.named(name).read(reader)
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
            if let mode = try GPIO.mode.named(name).read(reader) {
                guard settings.role == .open else { throw reader.error(table + ".mode", "applies only to role = \"open\"") }
                settings.openMode = GPIOLineSettings.OpenMode(rawValue: mode)!
            }
            settings.activeLow = try GPIO.activeLow.named(name).read(reader) ?? GPIO.activeLow.defaultValue
            if let bias = try GPIO.bias.named(name).read(reader) {
                settings.bias = GPIOLineSettings.Bias(rawValue: bias)!
            }
            if let milliseconds = try GPIO.debounceMs.named(name).read(reader) { settings.debounce = .milliseconds(milliseconds) }
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
