import NookActivities
import NookDisplay

/// Tints as LED colours (L3): saturated, because an LED shows a pastel as a washed-out white.
public enum PixelPalette {
    public static let accent = RGB(hex: 0x0080FF)
    public static let text = RGB(hex: 0xFFFFFF)
    public static let clock = RGB(hex: 0xFFB060)

    public static func color(for tint: NookTint) -> RGB {
        switch tint {
        case .accent: accent
        case .rgb(let red, let green, let blue): RGB(red: red, green: green, blue: blue)
        case .named(let name):
            switch name {
            case .red: RGB(hex: 0xFF0000)
            case .orange: RGB(hex: 0xFF5000)
            case .yellow: RGB(hex: 0xFFC000)
            case .green: RGB(hex: 0x00FF00)
            case .mint: RGB(hex: 0x00FF80)
            case .teal: RGB(hex: 0x00C0A0)
            case .cyan: RGB(hex: 0x00FFFF)
            case .blue: RGB(hex: 0x0000FF)
            case .indigo: RGB(hex: 0x4000FF)
            case .purple: RGB(hex: 0xA000FF)
            case .pink: RGB(hex: 0xFF0080)
            case .brown: RGB(hex: 0x803000)
            case .gray: RGB(hex: 0x808080)
            }
        }
    }

    /// `color` at `level` (0...1) of its intensity.
    static func scaled(_ color: RGB, _ level: Double) -> UInt32 {
        let level = max(0, min(1, level))
        return RGB(red: UInt8((Double(color.red) * level).rounded()), green: UInt8((Double(color.green) * level).rounded()),
                   blue: UInt8((Double(color.blue) * level).rounded())).pixel
    }
}
