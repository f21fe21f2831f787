import NookSound

/// Where sounds go (B1): an ALSA PCM, the kernel's beeper, or nowhere. Each real output plays
/// on a thread of its own: `play` and `stop` only hand over and return, so neither the screen
/// nor the queue ever waits for a speaker, a busy device or one that was unplugged.
public protocol SoundOutput: AnyObject, Sendable {
    /// Starts `program` at `volume` (0–100), cutting off whatever plays; returns at once.
    /// - Returns: whether a sound was playing, or handed over to play, and is cut off by it.
    @discardableResult
    func play(_ program: SoundProgram, volume: Int) -> Bool
    /// Silences what plays now; returns at once.
    /// - Returns: whether a sound was playing, or handed over to play, and is cut off.
    @discardableResult
    func stop() -> Bool
    /// Silences the output for good and ends its thread, waiting up to `bound` for the device
    /// to be silenced (nookd's exit: a beeper must not keep sounding after it).
    /// - Returns: whether it was silenced within `bound` (false: the device is stuck in a call).
    @discardableResult
    func close(within bound: Duration) -> Bool
    /// What the output is and how it fares, for `nookctl status`.
    var status: SoundOutputStatus { get }
    /// Why this output cannot play `program` at all (a beeper and a WAV file), or nil.
    func cannotPlay(_ program: SoundProgram) -> String?
    /// Whether a volume between 0 and 100 plays softer (a beeper's does not: it sounds or not).
    var hasVolume: Bool { get }
    /// Calls `handler` with the output's state after each change of it (a sound began or ended,
    /// the device failed), on the output's thread: status mirrors need not poll.
    func observe(_ handler: @escaping @Sendable (SoundOutputStatus.State) -> Void)
}

extension SoundOutput {
    public var hasVolume: Bool { true }
    /// For an output whose state never changes (none).
    public func observe(_ handler: @escaping @Sendable (SoundOutputStatus.State) -> Void) {}
}

/// An output's part of `nookctl status`.
public struct SoundOutputStatus: Sendable, Equatable {
    public enum State: String, Sendable {
        /// Nothing configured: sounds are not played, and a sender asking for one is told so.
        case none
        /// Not yet tried (the output opens its device with the first sound, or its start probe).
        case unknown
        case idle
        case playing
        /// The device is missing, busy or failed: `problem` says how; the next sound tries again.
        case unavailable
    }

    /// `none`, `alsa` or `beeper`.
    public var output: String
    /// The ALSA PCM's name or the beeper's path, once known.
    public var device: String?
    public var state: State
    /// The last failure, naming the call and its error, while the output is unavailable.
    public var problem: String?
    public var played: Int
    public var failed: Int
    /// Sound files that could not be read or decoded when they were to play (gone, changed, not a
    /// WAV file any more): each its log line, the output itself unharmed.
    public var unreadable: Int

    public init(output: String, device: String? = nil, state: State, problem: String? = nil, played: Int = 0, failed: Int = 0,
                unreadable: Int = 0) {
        (self.output, self.device, self.state, self.problem) = (output, device, state, problem)
        (self.played, self.failed, self.unreadable) = (played, failed, unreadable)
    }
}

/// No output (`output = "none"`, nook.toml's default): nothing plays, and every sound is one a
/// sender is told the board cannot play.
public final class SilentOutput: SoundOutput {
    /// Why there is no output where one was asked for (`auto` found none); nil for `none`.
    public let reason: String?

    public init(reason: String? = nil) { self.reason = reason }
    @discardableResult
    public func play(_ program: SoundProgram, volume: Int) -> Bool { false }
    @discardableResult
    public func stop() -> Bool { false }
    public func close(within bound: Duration) -> Bool { true }
    public var status: SoundOutputStatus { SoundOutputStatus(output: "none", state: .none, problem: reason) }
    public func cannotPlay(_ program: SoundProgram) -> String? {
        reason.map { "no sound output: " + $0 } ?? "no sound output is configured ([sound] output = \"none\")"
    }
}
