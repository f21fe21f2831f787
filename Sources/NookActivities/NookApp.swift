/// A named glance that stays on the idle display's rotation until it is removed or its lifetime
/// runs out (A1): the weather, the power the house uses, the next bus.
///
/// The shape follows AWTRIX's custom apps closely enough that a bridge translates one of
/// theirs field by field (text or coloured fragments, icon, colour, progress, a bar or line
/// chart, duration, position, lifetime and lifetime mode), so every way in builds this one
/// value and ``validate()`` is the one check.
public struct NookApp: Hashable, Sendable {
    /// What the app says: plain text, or fragments each in a colour of its own.
    public enum Content: Hashable, Sendable {
        case text(String)
        case fragments([Fragment])

        /// The words without their colours (what a glance-sized card shows as its title).
        public var plainText: String {
            switch self {
            case .text(let text): text
            case .fragments(let fragments): fragments.map(\.text).joined()
            }
        }
    }

    /// A run of text in one colour (AWTRIX's `{"t": "…", "c": "FF0000"}`); nil: the app's tint.
    public struct Fragment: Hashable, Sendable {
        public var text: String
        public var tint: NookTint?

        public init(_ text: String, tint: NookTint? = nil) {
            self.text = text
            self.tint = tint
        }
    }

    /// Up to ``Limits/chartValues`` values drawn as bars or as a line.
    public struct Chart: Hashable, Sendable {
        public enum Style: String, Hashable, Sendable, CaseIterable { case bar, line }
        public var style: Style
        public var values: [Double]

        public init(_ style: Style, _ values: [Double]) {
            self.style = style
            self.values = values
        }

        /// The values as bars (`▁▃▅█`) or as a line of braille dots (`⣀⠤⠒⠉`), scaled between their
        /// least and most: characters every card font has, so the card renderer draws them as text.
        public var characters: String {
            let levels: [Character] = style == .bar ? ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"] : ["⣀", "⠤", "⠒", "⠉"]
            guard let low = values.min(), let high = values.max() else { return "" }
            // Halved, a span between two finite values is finite: -1e308 to 1e308 would be an
            // infinite span, a NaN fraction and a trap converting it (a sender's chart, before
            // validation bounds it).
            let span = high / 2 - low / 2
            return String(values.map { value in
                let fraction = span > 0 ? (value / 2 - low / 2) / span : 0.5
                return levels[min(levels.count - 1, Int((fraction * Double(levels.count - 1)).rounded()))]
            })
        }
    }

    /// What happens when the lifetime runs out (AWTRIX's `lifetimeMode` 0 and 1).
    public enum LifetimeMode: String, Hashable, Sendable, CaseIterable {
        /// The app is removed.
        case remove
        /// The app stays, drawn dimmed with how long ago it was last set.
        case stale
    }

    /// The app's name: set again under it, an app is updated in place.
    public var name: String
    public var content: Content
    /// An icon name or a PNG path, as a card's (R3).
    public var icon: String?
    /// Drawn instead of an icon nookd finds neither built in nor as a file, as a card's (M3).
    public var iconFallback: String?
    public var tint: NookTint
    /// Drawn as a bar; 0...1, as a card's.
    public var progress: Double?
    public var chart: Chart?
    /// AWTRIX's `draw` commands, drawn over the app.
    public var drawing: NookDrawing?
    /// How long it stays on the glass each turn; nil: `[apps] duration_ms`.
    public var duration: Duration?
    /// Its place in the rotation, lowest first; nil: after those with one, in order of arrival.
    public var position: Int?
    /// How long after it was last set it runs out; nil: never.
    public var lifetime: Duration?
    public var lifetimeMode: LifetimeMode
    /// It has an action, with a card's rules (E3): the open input on it tells its sender
    /// (`invoked`); what the action does is the sender's business.
    public var hasAction: Bool
    /// Who set it (U3), filled in by whoever accepted it; nil for apps made in-process.
    public var sender: NookSender?

    public init(name: String, content: Content, icon: String? = nil, tint: NookTint = .accent, progress: Double? = nil,
                chart: Chart? = nil, drawing: NookDrawing? = nil, duration: Duration? = nil, position: Int? = nil, lifetime: Duration? = nil,
                lifetimeMode: LifetimeMode = .remove, hasAction: Bool = false, sender: NookSender? = nil) {
        self.name = name
        self.content = content
        self.icon = icon
        self.tint = tint
        self.progress = progress
        self.chart = chart
        self.drawing = drawing
        self.duration = duration
        self.position = position
        self.lifetime = lifetime
        self.lifetimeMode = lifetimeMode
        self.hasAction = hasAction
        self.sender = sender
    }
}

extension NookApp {
    public enum Limits {
        /// Fits a URL's query (`?name=`) and an MQTT topic level comfortably.
        public static let name = NookTextLimit(characters: 64, bytes: 256)
        /// The whole text, fragments together: a card title's limit.
        public static let text = NookActivity.Limits.title
        public static let fragments = 32
        public static let chartValues = 16
        public static let longestDuration: Duration = .seconds(3600)
        /// `[apps] duration_ms`'s floor: a turn of a microsecond would only spin the rotation.
        public static let shortestDuration: Duration = .seconds(1)
        public static let positions = 0...9999
        public static let longestLifetime: Duration = .seconds(30 * 24 * 3600)
        /// Apps kept at once: a rotation of more is no longer a glance.
        public static let count = 64
    }

    /// Checks every field; throws naming the first bad one, as ``NookActivity/validate()`` does.
    public func validate() throws(NookActivityValidationError) {
        if let problem = Self.nameProblem(name) { throw NookActivityValidationError(field: "name", problem: problem) }
        switch content {
        case .text(let text) where text.isEmpty:
            // An app may be an icon, a bar, a chart or a drawing alone, as AWTRIX's are.
            guard icon != nil || progress != nil || chart != nil || drawing != nil else {
                throw NookActivityValidationError(field: "text", problem: "is required when there is no icon, progress, chart or drawing to show")
            }
        case .text(let text):
            try Self.checkText(text, field: "text")
        case .fragments(let fragments):
            guard !fragments.isEmpty else { throw NookActivityValidationError(field: "text", problem: "must not be an empty list of fragments") }
            guard fragments.count <= Limits.fragments else {
                throw NookActivityValidationError(field: "text", problem: "must have at most \(Limits.fragments) fragments, got \(fragments.count)")
            }
            try Self.checkText(content.plainText, field: "text")
        }
        if icon != nil || iconFallback != nil {
            // The card's own rule and words for an icon.
            var standIn = NookActivity(title: "app", systemImage: icon)
            standIn.iconFallback = iconFallback
            try standIn.validate()
        }
        if let progress, !(progress.isFinite && (0...1).contains(progress)) {
            throw NookActivityValidationError(field: "progress", problem: "must be a number from 0 to 1, got \(progress)")
        }
        if let chart {
            guard (1...Limits.chartValues).contains(chart.values.count) else {
                throw NookActivityValidationError(field: "chart", problem: "must have from 1 to \(Limits.chartValues) values, got \(chart.values.count)")
            }
            if let bad = chart.values.first(where: { !$0.isFinite || abs($0) > 1e15 }) {
                throw NookActivityValidationError(field: "chart", problem: "values must be finite numbers within ±1e15, got \(bad)")
            }
        }
        if let drawing { try drawing.validate() }
        if let duration, duration < Limits.shortestDuration || duration > Limits.longestDuration {
            throw NookActivityValidationError(field: "duration", problem: "must be from \(Limits.shortestDuration.nookSeconds) s to "
                                              + "\(Limits.longestDuration.nookSeconds) s, got \(duration.nookSeconds) s")
        }
        if let position, !Limits.positions.contains(position) {
            throw NookActivityValidationError(field: "pos", problem: "must be a whole number from \(Limits.positions.lowerBound) to \(Limits.positions.upperBound), got \(position)")
        }
        if let lifetime, lifetime <= .zero || lifetime > Limits.longestLifetime {
            throw NookActivityValidationError(field: "lifetime",
                                              problem: "must be greater than zero and at most \(Limits.longestLifetime.nookSeconds) s, got \(lifetime.nookSeconds) s")
        }
    }

    /// The app says nothing in words: its card's title is its name, which LED matrices leave out.
    public var isWordless: Bool { content == .text("") }

    /// Why `name` cannot name an app, or nil: one line of visible text without `/` (a topic
    /// level, a path segment) nor whitespace at either end, within ``Limits/name``.
    public static func nameProblem(_ name: String) -> String? {
        // Invisible characters alone (a zero-width space) would name an app no list shows.
        if name.unicodeScalars.allSatisfy({ $0.properties.isWhitespace || $0.properties.isDefaultIgnorableCodePoint }) {
            return "must not be empty (or only invisible characters)"
        }
        if let problem = Limits.name.problem(with: name) { return problem }
        if name.unicodeScalars.contains(where: { $0 == "/" || isHidden($0) }) {
            return "must not contain '/', \(hiddenKinds), got '\(revealed(name))'"
        }
        // "weather " would be a second app, listed as if it were the "weather" another user set.
        if let first = name.unicodeScalars.first, let last = name.unicodeScalars.last, first.properties.isWhitespace || last.properties.isWhitespace {
            return "must not begin or end with a space or other whitespace, got '\(name)': it would list as another app of the name without it"
        }
        return nil
    }

    /// Characters that break the one line a name is, or make it read as another name than it
    /// is: C0 and C1 controls (NEL among them), the line and paragraph separators, and the
    /// bidirectional overrides, embeddings, isolates and marks (`weather` followed by U+202E
    /// shows as another user's app reversed), and the other invisible ones (a zero-width space
    /// or a soft hyphen makes `we` U+200B `ather` look like another sender's `weather` in every list).
    /// The joiners, variation selectors and tag characters stay: emoji and scripts need them.
    static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        case 0x200C, 0x200D, 0xFE00...0xFE0F, 0xE0020...0xE007F, 0xE0100...0xE01EF: false
        default: scalar.properties.isDefaultIgnorableCodePoint
        }
    }

    /// What ``isHidden(_:)`` takes, for an error.
    static let hiddenKinds = "control, line-breaking, bidirectional formatting or invisible characters"

    /// `text` with each ``isHidden(_:)`` character as `?`, for an error that quotes it.
    static func revealed(_ text: String) -> String {
        text.unicodeScalars.map { isHidden($0) ? "?" : String($0) }.joined()
    }

    private static func checkText(_ text: String, field: String) throws(NookActivityValidationError) {
        // The card title's rules and limit, named as this field.
        do {
            try NookActivity(title: text).validate()
        } catch {
            throw NookActivityValidationError(field: field, problem: error.problem)
        }
    }
}
