extension StatusAnswer {
    /// The sound output (B1): which, on what, and how it fares.
    public struct Sound: Sendable, Equatable {
        /// `none`, `alsa` or `beeper`.
        public var output: String
        /// The ALSA PCM's name or the beeper's event device, once known.
        public var device: String?
        /// `none`, `unknown` (not tried yet), `idle`, `playing` or `unavailable`.
        public var state: String
        /// While unavailable: the failed call and its error.
        public var problem: String?
        /// Sounds played, and refused by the device, since nookd started.
        public var played: Int
        public var failed: Int
        /// Sounds quiet hours or an empty room played lower, and kept silent (B3), since nookd started.
        public var lowered: Int
        public var silenced: Int
        /// `sound.volume` (0–100); nil from a nookd that does not say it.
        public var volume: Int?
        /// Sound files gone or broken when they were to play (B2), since nookd started.
        public var unreadable: Int
        /// `volume` was set over the API (`sound-volume`), not nook.toml's.
        public var volumeSet: Bool

        public init(output: String, device: String?, state: String, problem: String?, played: Int, failed: Int, lowered: Int = 0, silenced: Int = 0,
                    unreadable: Int = 0, volume: Int? = nil, volumeSet: Bool = false) {
            (self.output, self.device, self.state, self.problem, self.played, self.failed) = (output, device, state, problem, played, failed)
            (self.lowered, self.silenced, self.unreadable, self.volume, self.volumeSet) = (lowered, silenced, unreadable, volume, volumeSet)
        }

        var json: JSONValue {
            .object([("output", .string(output)), ("device", device.map(JSONValue.string) ?? .null), ("state", .string(state)),
                     ("problem", problem.map(JSONValue.string) ?? .null), ("played", .number(Double(played))),
                     ("failed", .number(Double(failed))), ("lowered", .number(Double(lowered))), ("silenced", .number(Double(silenced))),
                     ("unreadable", .number(Double(unreadable))), ("volume", volume.map { .number(Double($0)) } ?? .null),
                     ("volumeSet", .bool(volumeSet))])
        }

        init(reading sound: FieldReader) throws(ProtocolError) {
            self.init(output: try sound.requiredString("output"), device: try sound.string("device"), state: try sound.requiredString("state"),
                      problem: try sound.string("problem"), played: try sound.requiredCount("played"), failed: try sound.requiredCount("failed"),
                      // A nookd from before B3 sends neither.
                      lowered: try sound.count("lowered") ?? 0, silenced: try sound.count("silenced") ?? 0,
                      unreadable: try sound.count("unreadable") ?? 0, volume: try sound.count("volume"),
                      volumeSet: try sound.bool("volumeSet") ?? false)
        }

        /// `nookctl status`'s line: `sound: alsa on default, idle (3 played)`.
        public var line: String {
            // `auto` that found nothing says what it looked for; `none` was asked for.
            guard output != "none" else { return "sound: none (\(problem ?? "no output configured"))" }
            var text = "sound: \(output)" + (device.map { " on \($0)" } ?? "") + ", \(state)"
            if let problem { text += " (\(problem))" }
            if played > 0 || failed > 0 { text += ", \(played) played, \(failed) failed" }
            if lowered > 0 || silenced > 0 { text += ", \(lowered) lowered and \(silenced) silenced by the room" }
            if unreadable > 0 { text += ", \(unreadable) sound file\(unreadable == 1 ? "" : "s") unreadable when played" }
            if volumeSet, let volume { text += ", volume set to \(volume) (nookctl sound volume default gives back sound.volume)" }
            return text
        }
    }
}
