/// One transient thing to show on the glass: "Build finished", "Backup complete", "Doorbell" (Q1).
///
/// A plain value: build it anywhere, hand it to ``NookActivityQueue/enqueue(_:)``. The queue
/// checks it with ``validate()`` and rejects it as `invalid` (Q13) if a field is out of range.
public struct NookActivity: Identifiable, Hashable, Sendable {
    /// How long the activity holds the glass once it is on screen.
    public enum Presentation: Hashable, Sendable {
        /// On screen for ``NookActivity/dwell``, then gone. The default.
        case timed
        /// On screen until dismissed (Q14), or until `timeout` if one is given. A blocker
        /// without a timeout holds the queue until someone dismisses it, on purpose.
        case blocker(timeout: Duration?)
    }

    public var id: NookActivityID
    /// Activities sharing a key keep only the latest pending one (Q4); nil never coalesces.
    public var coalescingKey: String?
    public var priority: NookActivityPriority
    public var title: String
    public var subtitle: String?
    /// An SF-Symbol-style icon name (`hammer`, `bell`) or a PNG path (R3).
    public var systemImage: String?
    /// A built-in icon name drawn instead when `systemImage` is neither built in nor an icon
    /// file nookd finds (M3): what a bridge used to substitute itself, so that a file on the
    /// board is drawn first. nookd resolves it at enqueue; a card it holds has none.
    public var iconFallback: String?
    public var tint: NookTint
    /// Time on screen between animate-in and animate-out, for `.timed` activities. Must be > 0.
    public var dwell: Duration
    public var presentation: Presentation
    /// A pending activity older than this is dropped as `expired` instead of shown late (Q17).
    public var expiresAfter: Duration?
    /// Drawn as a bar; 0...1.
    public var progress: Double?
    /// Length of each of the animate-in and animate-out transitions (Q13).
    public var transition: Duration
    /// A pause after the activity is hidden, before the next one may take the glass (Q13).
    public var endDelay: Duration
    /// Not kept in the history once it ends (U4): a volume change, a key press echo.
    public var isTransient: Bool
    /// It has a default action (E3): while it is on the glass, the open input or `nookctl
    /// invoke` invokes it instead of opening the nook, and its sender hears `invoked` (a
    /// notification's "default" action). What the action does is the sender's business.
    public var hasAction: Bool
    /// Who sent it (U3), filled in by whoever accepted it (nookd, from the socket's peer
    /// credentials); nil for activities made in-process. Not a field a client sets.
    public var sender: NookSender?
    /// What it sounds like as it slides in (B4): a chime's name or an RTTTL string, which nookd
    /// checks at enqueue; empty for none, even where its priority has a sound; nil for its
    /// priority's sound.
    public var sound: String?
    /// How many times its sound plays (B2: AWTRIX's `loopSound`, LaMetric's `repeat`); nil: once.
    public var soundRepeat: NookSoundRepeat?
    /// Set on the cards the apps' rotation draws (A5): how an app looks beyond its title. Not
    /// a field a client sets, and not on the wire.
    public var app: NookAppFace?

    public static let defaultDwell: Duration = .milliseconds(2400)
    public static let defaultTransition: Duration = .milliseconds(250)
    public static let defaultEndDelay: Duration = .milliseconds(100)

    public init(
        id: NookActivityID = NookActivityID(),
        coalescingKey: String? = nil,
        priority: NookActivityPriority = .normal,
        title: String,
        subtitle: String? = nil,
        systemImage: String? = nil,
        tint: NookTint = .accent,
        dwell: Duration = NookActivity.defaultDwell,
        presentation: Presentation = .timed,
        expiresAfter: Duration? = nil,
        progress: Double? = nil,
        transition: Duration = NookActivity.defaultTransition,
        endDelay: Duration = NookActivity.defaultEndDelay,
        isTransient: Bool = false,
        hasAction: Bool = false,
        sender: NookSender? = nil
    ) {
        self.id = id
        self.coalescingKey = coalescingKey
        self.priority = priority
        self.title = title
        self.subtitle = subtitle
        self.systemImage = systemImage
        self.tint = tint
        self.dwell = dwell
        self.presentation = presentation
        self.expiresAfter = expiresAfter
        self.progress = progress
        self.transition = transition
        self.endDelay = endDelay
        self.isTransient = isTransient
        self.hasAction = hasAction
        self.sender = sender
    }

    public var isBlocker: Bool {
        if case .blocker = presentation { return true }
        return false
    }
}

/// The process that sent an activity (U3, U4): its user, process id and, when known, name.
public struct NookSender: Hashable, Sendable, CustomStringConvertible {
    public var uid: UInt32
    public var pid: Int32
    /// The process's name (`/proc/PID/comm`), read when the activity arrived, or the name a
    /// relaying client stated for whom it sent it (see `relayed`).
    public var name: String?
    /// The name was stated by a relaying client (nook-http's token name), not read from the
    /// process: only a request stating that name again reaches the card as its sender (U3), so
    /// a relay's name can never stand for a program of the same uid that has the same name.
    public var relayed: Bool

    public init(uid: UInt32, pid: Int32, name: String? = nil, relayed: Bool = false) {
        self.uid = uid
        self.pid = pid
        self.name = name
        self.relayed = relayed
    }

    public var description: String { "uid \(uid) pid \(pid)" + (name.map { " (\($0))" } ?? "") }
}

/// Why an activity was refused by ``NookActivity/validate()``: the field and what is wrong with it.
public struct NookActivityValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The field's name as the protocol and `nookctl` spell it (`title`, `dwell`, …).
    public let field: String
    public let problem: String

    public init(field: String, problem: String) {
        self.field = field
        self.problem = problem
    }

    public var description: String { "\(field): \(problem)" }
}

extension NookActivity {
    /// Upper bounds that keep one activity's memory and screen time sane.
    public enum Limits {
        public static let titleCharacters = 512
        public static let subtitleCharacters = 1024
        public static let coalescingKeyCharacters = 256
        public static let systemImageCharacters = 4096
        /// An RTTTL string's bound (B2).
        public static let soundCharacters = 4096
        /// Each text field in characters (code points) and in bytes: no code point is more than
        /// four bytes of UTF-8, so any script fills the character limit; a card shows far fewer.
        public static let title = NookTextLimit(characters: titleCharacters, bytes: 4 * titleCharacters)
        public static let subtitle = NookTextLimit(characters: subtitleCharacters, bytes: 4 * subtitleCharacters)
        public static let coalescingKey = NookTextLimit(characters: coalescingKeyCharacters, bytes: 4 * coalescingKeyCharacters)
        /// A symbol name or a PNG path: `PATH_MAX` bytes.
        public static let systemImage = NookTextLimit(characters: systemImageCharacters, bytes: 4096)
        public static let sound = NookTextLimit(characters: soundCharacters, bytes: 4 * soundCharacters)
        public static let longestDwell: Duration = .seconds(3600)
        public static let longestTransition: Duration = .seconds(5)
        public static let longestEndDelay: Duration = .seconds(10)
        public static let longestExpiry: Duration = .seconds(7 * 24 * 3600)
    }

    /// Checks every field against SPEC Q1 and ``Limits``; throws naming the first bad field.
    public func validate() throws(NookActivityValidationError) {
        try Self.checkText(title, field: "title", limit: Limits.title, required: true)
        if let subtitle {
            try Self.checkText(subtitle, field: "subtitle", limit: Limits.subtitle, required: false)
        }
        if let coalescingKey {
            try Self.checkText(coalescingKey, field: "key", limit: Limits.coalescingKey, required: true)
        }
        if let systemImage {
            try Self.checkText(systemImage, field: "icon", limit: Limits.systemImage, required: true)
        }
        if let sound {
            try Self.checkText(sound, field: "sound", limit: Limits.sound, required: false)
        }
        if let soundRepeat, let problem = soundRepeat.problem {
            throw NookActivityValidationError(field: "soundRepeat", problem: problem)
        }
        if let iconFallback, let problem = NookIconNames.fallbackProblem(iconFallback) {
            throw NookActivityValidationError(field: "iconFallback", problem: problem)
        }
        try Self.checkDuration(dwell, field: "dwell", allowZero: false, longest: Limits.longestDwell)
        try Self.checkDuration(transition, field: "transition", allowZero: true, longest: Limits.longestTransition)
        try Self.checkDuration(endDelay, field: "endDelay", allowZero: true, longest: Limits.longestEndDelay)
        if let expiresAfter {
            try Self.checkDuration(expiresAfter, field: "expiresAfter", allowZero: false, longest: Limits.longestExpiry)
        }
        if case .blocker(let timeout?) = presentation {
            try Self.checkDuration(timeout, field: "timeout", allowZero: false, longest: Limits.longestExpiry)
        }
        if let progress, !(progress.isFinite && (0...1).contains(progress)) {
            throw NookActivityValidationError(field: "progress", problem: "must be a number from 0 to 1, got \(progress)")
        }
    }

    /// Every activity is checked where it enters (decoded, queued, fitted to a screen), so the
    /// common case is read from the UTF-8 bytes alone; characters are counted and classified
    /// only when the bytes cannot answer (grapheme breaking was a tenth of a pipelined enqueue).
    private static func checkText(_ text: String, field: String, limit: NookTextLimit, required: Bool) throws(NookActivityValidationError) {
        // U+0000 is the byte 0 in UTF-8 and no other character contains that byte.
        var hasNUL = false
        // A printable ASCII byte is a character of its own or part of one that is not
        // whitespace, so the text is not blank.
        var hasVisibleASCII = false
        var isASCII = true
        let scanned: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes {
                if byte == 0 { hasNUL = true } else if byte > 0x20 && byte < 0x7F { hasVisibleASCII = true } else if byte >= 0x80 { isASCII = false }
            }
        }
        if scanned == nil {
            hasNUL = text.utf8.contains(0)
            hasVisibleASCII = text.utf8.contains { $0 > 0x20 && $0 < 0x7F }
            isASCII = !text.utf8.contains { $0 >= 0x80 }
        }
        if required, !hasVisibleASCII, text.allSatisfy(\.isWhitespace) {
            throw NookActivityValidationError(field: field, problem: "must not be empty")
        }
        if let problem = limit.problem(with: text, isASCII: isASCII) {
            throw NookActivityValidationError(field: field, problem: problem)
        }
        if hasNUL {
            throw NookActivityValidationError(field: field, problem: "must not contain NUL characters")
        }
    }

    private static func checkDuration(_ value: Duration, field: String, allowZero: Bool, longest: Duration) throws(NookActivityValidationError) {
        if value < .zero || (!allowZero && value == .zero) {
            throw NookActivityValidationError(field: field, problem: "must be \(allowZero ? "zero or more" : "greater than zero"), got \(value.nookSeconds) s")
        }
        if value > longest {
            throw NookActivityValidationError(field: field, problem: "must be at most \(longest.nookSeconds) s, got \(value.nookSeconds) s")
        }
    }
}

extension Duration {
    /// Seconds as a floating-point number, for messages and the wire format.
    public var nookSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// A duration from seconds, nil if not finite or beyond what a `Duration` holds sensibly.
    public static func nookSeconds(_ seconds: Double) -> Duration? {
        guard seconds.isFinite, abs(seconds) < 1e12 else { return nil }
        let whole = seconds.rounded(.towardZero)
        return .seconds(Int64(whole)) + .nanoseconds(Int64(((seconds - whole) * 1e9).rounded()))
    }
}
