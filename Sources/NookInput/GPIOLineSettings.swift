/// One GPIO input as nookd's config declares it (`[gpio.NAME]`, SPEC I1).
public struct GPIOLineSettings: Hashable, Sendable {
    public enum Role: String, Hashable, Sendable, CaseIterable {
        /// Level: engaged while the line is active (a digital proximity or PIR sensor).
        case hover
        /// A press toggles the nook open and closed; with ``OpenMode/level`` the line's level
        /// is the state (a lid or slide switch).
        case open
        /// A press dismisses the card on the glass, blocker or not (Q14).
        case dismiss
        /// Level: someone is in the room while the line is active (a PIR motion sensor, Z3);
        /// never engages the queue.
        case presence
    }

    public enum OpenMode: String, Hashable, Sendable, CaseIterable {
        case toggle, level
    }

    public enum Bias: String, Hashable, Sendable, CaseIterable {
        case asIs = "as-is"
        case disabled
        case pullUp = "pull-up"
        case pullDown = "pull-down"
    }

    /// The config's name for the input (`button` in `[gpio.button]`).
    public var name: String
    public var role: Role
    public var openMode: OpenMode = .toggle
    /// `/dev/gpiochip0`, `gpiochip0` or the chip's label (`pinctrl-bcm2711`); nil searches
    /// every chip for ``lineName``.
    public var chip: String?
    public var offset: Int?
    /// The line's name from the Device Tree's `gpio-line-names` (`NOOK_BUTTON`).
    public var lineName: String?
    /// Active when the line is low: a button to ground with a pull-up.
    public var activeLow = false
    public var bias: Bias = .asIs
    /// Edges closer together than this after an accepted change are contact bounce.
    public var debounce: Duration = .milliseconds(30)
    /// An `open` button in toggle mode held this long makes a long press (U5's recall);
    /// nil: it has none.
    public var longPressAfter: Duration?

    public init(name: String, role: Role, chip: String? = nil, offset: Int? = nil, lineName: String? = nil) {
        self.name = name
        self.role = role
        self.chip = chip
        self.offset = offset
        self.lineName = lineName
    }

    /// The input's name in logs, `nookctl status` and the engagement inputs.
    public var label: String { "gpio:" + name }

    /// Where the line is, as a person wrote it.
    public var location: String {
        switch (chip, offset, lineName) {
        case let (chip?, offset?, _): return "\(chip) line \(offset)"
        case let (chip?, nil, name?): return "line \(name) on \(chip)"
        case let (nil, _, name?): return "line \(name)"
        default: return "an unspecified line"
        }
    }
}
