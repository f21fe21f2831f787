/// The built-in icon names a card may use (R3): what the renderer's glyph table draws, listed by
/// `nookctl icons` and checked by nookd so that the sender of a misspelt name is told. A name
/// that is neither one of these nor an image file is drawn as the generic glyph.
public enum NookIconNames {
    /// Sorted, so that a listing reads in order.
    public static let all: [String] = [
        "airplane", "antenna.radiowaves.left.and.right", "arrow.clockwise", "arrow.down.circle",
        "arrow.up.circle", "banknote", "battery.0", "battery.100", "battery.25", "battery.50",
        "battery.75", "bed.double", "bell", "bolt", "bolt.horizontal", "bookmark",
        "bubble.left.and.bubble.right", "bus", "calendar", "camera", "car", "cart", "checkmark",
        "checkmark.circle", "checkmark.square", "chevron.left.forwardslash.chevron.right", "clock",
        "cloud", "creditcard", "cross.case", "cup.and.saucer", "cylinder", "desktopcomputer", "doc",
        "door.left.hand.open", "dot.circle", "drop", "envelope", "exclamationmark.circle",
        "exclamationmark.triangle", "eye", "film", "flag", "flame", "folder", "fork.knife", "gear",
        "gearshape.2", "gift", "globe", "hammer", "headphones", "heart", "hourglass", "house",
        "info.circle", "internaldrive", "key", "ladybug", "leaf", "lightbulb", "lock", "lock.open",
        "megaphone", "message", "mic", "moon", "music.note", "paperplane", "pause", "person",
        "person.2", "phone", "photo", "play", "power", "printer", "questionmark.circle",
        "server.rack", "shield", "shippingbox", "snowflake", "speaker.wave.2",
        "square.and.arrow.down", "square.and.arrow.up", "star", "stop", "sun.max", "tag",
        "terminal", "thermometer", "ticket", "timer", "trash", "trophy", "truck.box", "umbrella",
        "video", "waveform.path.ecg", "wifi", "wrench", "xmark", "xmark.circle", "xmark.octagon",
    ]

    private static let known = Set(all)

    public static func isKnown(_ name: String) -> Bool { known.contains(name) }

    /// Whether `name` names an image file (a path, or a `.png` or `.gif` in an icon directory)
    /// rather than a built-in icon.
    public static func namesFile(_ name: String) -> Bool { name.hasSuffix(".png") || name.hasSuffix(".gif") || name.hasPrefix("/") }

    /// What the sender of `name` is told when it is neither a built-in name nor an image file:
    /// the card is still shown, with the generic glyph. Nil for a name that is drawn as asked.
    /// `shownOn`: what shows it (`card`, `app`).
    public static func warning(for name: String, shownOn: String = "card") -> String? {
        guard !isKnown(name), !namesFile(name) else { return nil }
        let suggestion = nearest(to: name).map { " (did you mean '\($0)'?)" } ?? ""
        return "unknown icon '\(SaidText.shown(name, scalars: 100))'\(suggestion): the \(shownOn) shows the generic glyph; 'nookctl icons' lists the known names"
    }

    /// Whether a sender's icon name or id (`heat`, `1234`, `a1234`) may be looked up as an icon
    /// file (`NAME.png`, `NAME.gif`) in an icon directory (M3): one line, not a path or a file's
    /// own name, not hidden, and short enough to be a file name.
    public static func mayNameIconFile(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 200 && !name.hasPrefix(".") && !namesFile(name) && !name.contains("/")
            && !name.unicodeScalars.contains { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format }
    }

    /// Why `name` cannot be an icon fallback (a built-in name, or empty for no icon, M3), or nil
    /// if it can.
    public static func fallbackProblem(_ name: String) -> String? {
        guard !isKnown(name), !name.isEmpty else { return nil }
        let suggestion = nearest(to: name).map { " (did you mean '\($0)'?)" } ?? ""
        return "must be a built-in icon name ('nookctl icons' lists them) or empty for none, got '\(SaidText.shown(name, scalars: 100))'\(suggestion)"
    }

    /// The known name closest to `name` by edit distance, if it is close enough to be a typo
    /// (at most a third of its letters differ).
    public static func nearest(to name: String) -> String? {
        let typed = Array(name.lowercased().unicodeScalars)
        guard !typed.isEmpty, typed.count <= 64 else { return nil }
        var best: (name: String, distance: Int)?
        for candidate in all {
            let distance = editDistance(typed, Array(candidate.unicodeScalars))
            if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        guard let best, best.distance <= max(1, typed.count / 3) else { return nil }
        return best.name
    }

    /// Levenshtein distance: insertions, deletions and substitutions of one scalar each.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
