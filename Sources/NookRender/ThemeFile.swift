import NookActivities
import NookConfig
import NookDisplay

extension Theme {
    /// The keys a `[theme]` table may hold, for documentation and error messages.
    public static let configKeys = [
        "appearance", "file", "accent", "background", "card", "text", "secondary_text", "corner_radius",
        "font", "icon_font", "title_scale", "subtitle_scale",
    ] + NookTint.Name.allCases.map { "palette.\($0.rawValue)" }
    /// `corner_radius`, a fraction of the card's shorter side.
    public static let cornerRadiusRange: ClosedRange<Double> = 0...0.5
    /// `title_scale` and `subtitle_scale`.
    public static let textScaleRange: ClosedRange<Double> = 0.25...4

    /// Reads a `[theme]` table (R2): `appearance` picks the dark or light base, `file` loads a
    /// theme file's `[theme]` table over it, and the remaining keys override single values.
    /// Relative `file` paths are taken from `directory`.
    public static func load(from reader: ConfigReader, table: String = "theme", directory: String = ".") throws(ConfigError) -> Theme {
        let appearance = try reader.choice("\(table).appearance", among: Theme.Appearance.allCases.map(\.rawValue))
        var theme = Theme.named(appearance.flatMap(Theme.Appearance.init(rawValue:)) ?? .dark)
        if let file = try reader.string("\(table).file") {
            let path = file.hasPrefix("/") ? file : directory + "/" + file
            let themeReader = ConfigReader(try ConfigDocument.load(path: path))
            theme = try theme.applying(themeReader, table: "theme")
            try themeReader.rejectUnknownKeys(known: ["theme", "theme.palette"])
        }
        return try theme.applying(reader, table: table)
    }

    /// This theme with every key the reader's `table` sets applied over it.
    public func applying(_ reader: ConfigReader, table: String) throws(ConfigError) -> Theme {
        var theme = self
        if let appearance = try reader.choice("\(table).appearance", among: Theme.Appearance.allCases.map(\.rawValue)),
           appearance != theme.appearance.rawValue {
            theme = Theme.named(Theme.Appearance(rawValue: appearance)!)
        }
        func color(_ key: String) throws(ConfigError) -> RGB? {
            guard let text = try reader.string("\(table).\(key)") else { return nil }
            guard case .rgb(let red, let green, let blue)? = NookTint(parsing: text) else {
                throw reader.error("\(table).\(key)", "must be a colour as \"#RRGGBB\", got \"\(text)\"")
            }
            return RGB(red: red, green: green, blue: blue)
        }
        if let value = try color("accent") { theme.accent = value }
        if let value = try color("background") { theme.background = value }
        if let value = try color("card") { theme.cardBackground = value }
        if let value = try color("text") { theme.primaryText = value }
        if let value = try color("secondary_text") { theme.secondaryText = value }
        for name in NookTint.Name.allCases {
            if let value = try color("palette.\(name.rawValue)") { theme.palette[name] = value }
        }
        if let value = try reader.number("\(table).corner_radius", in: Self.cornerRadiusRange) { theme.cornerRadius = value }
        if let value = try reader.number("\(table).title_scale", in: Self.textScaleRange) { theme.titleScale = value }
        if let value = try reader.number("\(table).subtitle_scale", in: Self.textScaleRange) { theme.subtitleScale = value }
        if let value = try reader.string("\(table).font") {
            guard !value.isEmpty else { throw reader.error("\(table).font", "must name a font family") }
            theme.fontFamily = value
        }
        if let value = try reader.string("\(table).icon_font") {
            guard !value.isEmpty else { throw reader.error("\(table).icon_font", "must name a font family") }
            theme.iconFontFamily = value
        }
        _ = try reader.string("\(table).file")
        return theme
    }
}
