import NookActivities
import NookDisplay

/// Colours, shape and type of cards and home content (R2). Cards resolve their tint against
/// the theme the host runs with; nothing else needs wiring.
public struct Theme: Hashable, Sendable {
    public enum Appearance: String, CaseIterable, Sendable {
        case dark, light
    }

    public var appearance: Appearance
    /// Behind the card, and the home content's background.
    public var background: RGB
    public var cardBackground: RGB
    public var primaryText: RGB
    public var secondaryText: RGB
    /// The tint of activities that name none.
    public var accent: RGB
    public var palette: [NookTint.Name: RGB]
    /// Corner radius as a fraction of the card's shorter side.
    public var cornerRadius: Double
    public var fontFamily: String
    public var iconFontFamily: String
    /// Multipliers on the panel-scaled title and subtitle sizes.
    public var titleScale: Double
    public var subtitleScale: Double

    public static let dark = Theme(
        appearance: .dark,
        background: RGB(hex: 0x000000), cardBackground: RGB(hex: 0x1C1C1E),
        primaryText: RGB(hex: 0xFFFFFF), secondaryText: RGB(hex: 0xA1A1A6),
        accent: RGB(hex: 0x0A84FF),
        palette: [
            .red: RGB(hex: 0xFF453A), .orange: RGB(hex: 0xFF9F0A), .yellow: RGB(hex: 0xFFD60A),
            .green: RGB(hex: 0x30D158), .mint: RGB(hex: 0x63E6E2), .teal: RGB(hex: 0x40C8E0),
            .cyan: RGB(hex: 0x64D2FF), .blue: RGB(hex: 0x0A84FF), .indigo: RGB(hex: 0x5E5CE6),
            .purple: RGB(hex: 0xBF5AF2), .pink: RGB(hex: 0xFF375F), .brown: RGB(hex: 0xAC8E68),
            .gray: RGB(hex: 0x8E8E93),
        ],
        cornerRadius: 0.16, fontFamily: "DejaVu Sans", iconFontFamily: "FontAwesome",
        titleScale: 1, subtitleScale: 1)

    public static let light = Theme(
        appearance: .light,
        background: RGB(hex: 0xE5E5EA), cardBackground: RGB(hex: 0xFFFFFF),
        primaryText: RGB(hex: 0x000000), secondaryText: RGB(hex: 0x6C6C70),
        accent: RGB(hex: 0x007AFF),
        palette: [
            .red: RGB(hex: 0xFF3B30), .orange: RGB(hex: 0xFF9500), .yellow: RGB(hex: 0xFFCC00),
            .green: RGB(hex: 0x34C759), .mint: RGB(hex: 0x00C7BE), .teal: RGB(hex: 0x30B0C7),
            .cyan: RGB(hex: 0x32ADE6), .blue: RGB(hex: 0x007AFF), .indigo: RGB(hex: 0x5856D6),
            .purple: RGB(hex: 0xAF52DE), .pink: RGB(hex: 0xFF2D55), .brown: RGB(hex: 0xA2845E),
            .gray: RGB(hex: 0x8E8E93),
        ],
        cornerRadius: 0.16, fontFamily: "DejaVu Sans", iconFontFamily: "FontAwesome",
        titleScale: 1, subtitleScale: 1)

    public static func named(_ appearance: Appearance) -> Theme {
        appearance == .dark ? .dark : .light
    }

    /// The colour a tint stands for in this theme.
    public func color(for tint: NookTint) -> RGB {
        switch tint {
        case .accent: accent
        case .named(let name): palette[name] ?? accent
        case .rgb(let red, let green, let blue): RGB(red: red, green: green, blue: blue)
        }
    }

    /// Black or white, whichever reads better on `background` (for the icon on its tint disc).
    static func contrastingText(on background: RGB) -> RGB {
        let luminance = 0.2126 * Double(background.red) + 0.7152 * Double(background.green) + 0.0722 * Double(background.blue)
        return luminance > 185 ? RGB(hex: 0x000000) : RGB(hex: 0xFFFFFF)
    }
}
