/// The accent colour of a card (Q1, R2): the theme's accent, a named palette colour, or `#RRGGBB`.
///
/// The queue only carries the value; the renderer's theme resolves names to pixels.
public enum NookTint: Hashable, Sendable, CustomStringConvertible {
    case accent
    case named(Name)
    case rgb(red: UInt8, green: UInt8, blue: UInt8)

    /// The named palette of SPEC R2.
    public enum Name: String, CaseIterable, Sendable {
        case red, orange, yellow, green, mint, teal, cyan, blue, indigo, purple, pink, brown, gray
    }

    /// Parses `accent`, a palette name (`grey` is accepted for `gray`) or `#RRGGBB`.
    public init?(parsing text: String) {
        let lowered = text.lowercased()
        if lowered == "accent" {
            self = .accent
        } else if let name = Name(rawValue: lowered == "grey" ? "gray" : lowered) {
            self = .named(name)
        } else if lowered.utf8.count == 7, lowered.first == "#",
                  lowered.dropFirst().allSatisfy(\.isHexDigit),
                  let value = UInt32(lowered.dropFirst(), radix: 16) {
            self = .rgb(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .accent: return "accent"
        case .named(let name): return name.rawValue
        case .rgb(let red, let green, let blue):
            let digits = [red, green, blue].map { byte -> String in
                let text = String(byte, radix: 16)
                return byte < 16 ? "0" + text : text
            }
            return "#" + digits.joined()
        }
    }

    /// `0xRRGGBB` as a colour of its own.
    public init(rgb: UInt32) {
        self = .rgb(red: UInt8(rgb >> 16 & 0xFF), green: UInt8(rgb >> 8 & 0xFF), blue: UInt8(rgb & 0xFF))
    }

    /// A colour of its own as `0xRRGGBB`; nil for the accent and a named colour.
    public var rgbValue: UInt32? {
        guard case .rgb(let red, let green, let blue) = self else { return nil }
        return UInt32(red) << 16 | UInt32(green) << 8 | UInt32(blue)
    }

    /// What `init(parsing:)` accepts, for error messages.
    public static let accepted = "accent, " + Name.allCases.map(\.rawValue).joined(separator: ", ") + " or #RRGGBB"
}
