import NookActivities

/// SF-Symbol-style icon names mapped to glyphs of the Font Awesome 4.7 font that Debian's
/// `fonts-font-awesome` installs (R3). A name not in the table falls back to ``generic`` and
/// the render reports a warning; a name that is a path to a PNG file is drawn as that image.
/// Its names are `NookIconNames.all` (which nookctl lists without linking cairo); a test
/// keeps the two equal.
public enum IconCatalog {
    /// The glyph for an unknown name: a dot in a circle.
    public static let generic: Unicode.Scalar = "\u{F192}"

    public static let glyphs: [String: Unicode.Scalar] = [
        "hammer": "\u{F0E3}", "wrench": "\u{F0AD}", "gear": "\u{F013}", "gearshape.2": "\u{F085}",
        "checkmark": "\u{F00C}", "checkmark.circle": "\u{F058}", "checkmark.square": "\u{F14A}",
        "xmark": "\u{F00D}", "xmark.circle": "\u{F057}", "xmark.octagon": "\u{F05E}",
        "exclamationmark.triangle": "\u{F071}", "exclamationmark.circle": "\u{F06A}",
        "info.circle": "\u{F05A}", "questionmark.circle": "\u{F059}",
        "bell": "\u{F0F3}", "envelope": "\u{F0E0}", "message": "\u{F075}", "bubble.left.and.bubble.right": "\u{F086}",
        "phone": "\u{F095}", "paperplane": "\u{F1D8}", "megaphone": "\u{F0A1}",
        "arrow.down.circle": "\u{F0AB}", "arrow.up.circle": "\u{F0AA}", "arrow.clockwise": "\u{F021}",
        "square.and.arrow.down": "\u{F019}", "square.and.arrow.up": "\u{F093}",
        "wifi": "\u{F1EB}", "antenna.radiowaves.left.and.right": "\u{F09E}", "bolt.horizontal": "\u{F1E6}",
        "battery.100": "\u{F240}", "battery.75": "\u{F241}", "battery.50": "\u{F242}",
        "battery.25": "\u{F243}", "battery.0": "\u{F244}",
        "music.note": "\u{F001}", "headphones": "\u{F025}", "speaker.wave.2": "\u{F028}", "mic": "\u{F130}",
        "play": "\u{F04B}", "pause": "\u{F04C}", "stop": "\u{F04D}", "film": "\u{F008}", "camera": "\u{F030}",
        "video": "\u{F03D}", "photo": "\u{F03E}",
        "calendar": "\u{F073}", "clock": "\u{F017}", "hourglass": "\u{F252}", "timer": "\u{F0E4}",
        "flame": "\u{F06D}", "bolt": "\u{F0E7}", "drop": "\u{F043}", "leaf": "\u{F06C}",
        "sun.max": "\u{F185}", "moon": "\u{F186}", "umbrella": "\u{F0E9}", "cloud": "\u{F0C2}",
        "thermometer": "\u{F2C9}", "snowflake": "\u{F2DC}",
        "trash": "\u{F1F8}", "lock": "\u{F023}", "lock.open": "\u{F09C}", "key": "\u{F084}", "shield": "\u{F132}",
        "eye": "\u{F06E}", "house": "\u{F015}", "door.left.hand.open": "\u{F08B}", "bed.double": "\u{F236}",
        "person": "\u{F007}", "person.2": "\u{F0C0}", "heart": "\u{F004}", "star": "\u{F005}",
        "cart": "\u{F07A}", "creditcard": "\u{F09D}", "gift": "\u{F06B}", "tag": "\u{F02B}",
        "car": "\u{F1B9}", "bus": "\u{F207}", "airplane": "\u{F072}", "shippingbox": "\u{F187}", "truck.box": "\u{F0D1}",
        "globe": "\u{F0AC}", "server.rack": "\u{F233}", "cylinder": "\u{F1C0}", "desktopcomputer": "\u{F108}",
        "terminal": "\u{F120}", "chevron.left.forwardslash.chevron.right": "\u{F121}", "ladybug": "\u{F188}",
        "printer": "\u{F02F}", "power": "\u{F011}", "lightbulb": "\u{F0EB}", "flag": "\u{F024}",
        "bookmark": "\u{F02E}", "folder": "\u{F07B}", "doc": "\u{F15B}", "internaldrive": "\u{F0A0}",
        "cup.and.saucer": "\u{F0F4}", "fork.knife": "\u{F0F5}", "cross.case": "\u{F0FA}", "waveform.path.ecg": "\u{F21E}",
        "trophy": "\u{F091}", "ticket": "\u{F145}", "banknote": "\u{F0D6}", "dot.circle": "\u{F192}",
    ]

    /// How an activity's `systemImage` will be drawn.
    public enum Resolved: Hashable, Sendable {
        case glyph(Unicode.Scalar)
        case png(path: String)
        /// Unknown name: the generic glyph, and this warning for the log.
        case fallback(warning: String)
    }

    public static func resolve(_ name: String) -> Resolved {
        if let glyph = glyphs[name] { return .glyph(glyph) }
        if NookIconNames.namesFile(name) { return .png(path: name) }
        return .fallback(warning: NookIconNames.warning(for: name) ?? "unknown icon '\(name)': the card shows the generic glyph")
    }

    /// Whether `name` names an image file rather than a glyph.
    public static func namesFile(_ name: String) -> Bool {
        if case .png = resolve(name) { return true }
        return false
    }
}
