import NookActivities

/// Valid cards whose text costs text layout the most: every title and subtitle at the limits
/// of ``NookActivity/Limits`` in characters, bytes or scalars a character, in the scripts and
/// sequences that make shaping, font fallback and bidi work hardest. The render tests draw
/// them all, and `nook-bench` times the slowest (`card_render_worst_ms`).
public enum HostileCards {
    /// One letter and `marks` combining marks, cycling through five of them (so no font can
    /// shortcut a repeated mark): one character, 1 + 2 × `marks` bytes.
    static func stack(_ base: Character, marks: Int) -> String {
        let accents: [Unicode.Scalar] = ["\u{301}", "\u{308}", "\u{323}", "\u{330}", "\u{35C}"]
        var text = String(base)
        for index in 0..<marks { text.unicodeScalars.append(accents[index % accents.count]) }
        return text
    }

    /// `piece` repeated while the result stays within `limit` (code points and bytes).
    static func filling(_ limit: NookTextLimit, with pieces: [String]) -> String {
        var text = ""
        var scalars = 0
        var index = 0
        while true {
            let piece = pieces[index % pieces.count]
            guard scalars + piece.unicodeScalars.count <= limit.characters, text.utf8.count + piece.utf8.count <= limit.bytes else { break }
            text += piece
            scalars += piece.unicodeScalars.count
            index += 1
        }
        return text
    }

    /// The texts, each filling `limit`.
    public static func texts(_ limit: NookTextLimit) -> [(name: String, text: String)] {
        let tallest = NookTextLimit.scalarsPerCharacter - 1
        return [
            // The tallest stacks allowed, as many as the bytes allow.
            ("combining-stacks", filling(limit, with: [stack("t", marks: tallest), stack("a", marks: tallest)])),
            // As many characters as allowed, each with a mark.
            ("accented", filling(limit, with: ["a\u{301}", "e\u{308}", "o\u{323}"])),
            ("zwj-families", filling(limit, with: ["👩‍👩‍👧‍👦", "👨‍👨‍👦‍👦"])),
            ("skin-tone-couples", filling(limit, with: ["👩🏽‍❤️‍💋‍👨🏿", "🧑🏻‍🤝‍🧑🏿"])),
            ("flags", filling(limit, with: ["🇯🇵", "🇧🇷", "🏴󠁧󠁢󠁳󠁣󠁴󠁿"])),
            ("cjk", filling(limit, with: ["漢字", "かな", "한국어", "中文"])),
            ("arabic-vowelled", filling(limit, with: ["بِسْمِ ", "ٱللَّٰهِ ", "ٱلرَّحْمَٰنِ "])),
            ("hebrew-pointed", filling(limit, with: ["שָׁלוֹם ", "בְּרֵאשִׁית "])),
            ("devanagari-conjuncts", filling(limit, with: ["क्ष्म्य ", "श्र्ध्व "])),
            // A script change at every character: a font fallback and a bidi run each.
            ("mixed-every-character", filling(limit, with: ["a", "ب", "漢", "ก", "😀", "ж", "א", "क", "ñ", "Ω"])),
            // Nested direction overrides and isolates, to the bidi algorithm's depth.
            ("bidi-controls", filling(limit, with: ["\u{202E}a", "\u{202D}ب", "\u{2067}c", "\u{2066}ד"])),
            ("zero-width", filling(limit, with: ["\u{200B}", "\u{2060}", "\u{FEFF}"])),
            ("one-long-word", filling(limit, with: ["W"])),
            ("thai", filling(limit, with: ["ภาษาไทย", "สวัสดี"])),
            ("newlines", filling(limit, with: ["x\n"])),
        ]
    }

    /// One card per text pairing (each title with the subtitle of the next kind), with the
    /// icons given cycled through them so that every icon is drawn, a progress bar on every
    /// other one and a blocker (its own default icon) among them.
    public static func cards(icons: [String]) -> [NookActivity] {
        let titles = texts(NookActivity.Limits.title)
        let subtitles = texts(NookActivity.Limits.subtitle)
        let count = max(titles.count, icons.count) + 1
        return (0..<count).map { index in
            var card = NookActivity(title: titles[index % titles.count].text, subtitle: subtitles[(index + 1) % subtitles.count].text,
                                    systemImage: icons.isEmpty ? nil : icons[index % icons.count], tint: .named(.orange),
                                    progress: index % 2 == 0 ? 0.5 : nil)
            if index == count - 1 {
                card.systemImage = nil
                card.presentation = .blocker(timeout: nil)
            }
            return card
        }
    }
}
