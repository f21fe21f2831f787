#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import NookActivities
import NookProtocol
import NookSystem

extension OperationCommands {
    /// The commands for a sound with no card (B4).
    static var soundCommands: [(NookOperation.Name, ParsableCommand.Type)] {
        [
        (.soundPlay, SoundPlay.self),
        (.soundStop, SoundStop.self),
        (.soundVolume, SoundVolume.self),
        ]
    }
}

/// `nookctl sound …` (B4): a sound now, with no card, as the room allows; or the one playing stopped.
struct Sound: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sound",
        abstract: "Play a sound now, with no card (a chime's name or an RTTTL string), or stop the one playing.",
        discussion: """
            The room decides as for a card's sound: quiet hours and an empty room lower or silence it \
            by its priority ([sound] in nook.toml). Nothing is queued and the glass does not change. \
            See docs/sound.md.
            """,
        subcommands: OperationCommands.subcommands(under: ["sound"]))
}

struct SoundPlay: ParsableCommand {
    static let configuration = CommandConfiguration.operation(
        SoundPlay.self,
        abstract: "Play a sound now: a chime's name (doorbell, alarm, message-new-instant, …) or an RTTTL string.",
        discussion: """
            Prints what became of it (played, or played lower and why). A sound that is not played \
            (no sound output, volume 0, silenced by quiet hours or an empty room) is said on standard \
            error and exits 2; a name Nook has no chime for, or a bad RTTTL note, is refused (exit 1).
            """)
    @OptionGroup var connection: Connection
    @Argument(help: "A chime's name (docs/sound.md lists them) or an RTTTL string (name:d=4,o=5,b=100:notes).") var sound: String
    @Option(help: ArgumentHelp("The priority the room's rules read, as a card's: low, normal or high (default normal).", valueName: "priority"),
            completion: .list(NookActivityPriority.allCases.map(\.description)))
    var priority: String?
    // Unconditional: `--volume -1` is a volume out of range, not a missing value.
    @Option(parsing: .unconditional, help: "0 to 100 (default: sound.volume in nook.toml); never louder than nook.toml and the room allow.")
    var volume: Int?

    func validate() throws {
        guard !sound.isEmpty else { throw ValidationError("the sound must be a chime's name or an RTTTL string, not empty") }
        if let priority, NookActivityPriority(name: priority) == nil { throw ValidationError("--priority must be low, normal or high; got '\(priority)'") }
        if let volume, !SoundRequest.volumes.contains(volume) { throw ValidationError("--volume must be 0 to 100; got \(volume)") }
    }

    func run() throws {
        let request = SoundRequest(sound: sound, priority: priority.flatMap(NookActivityPriority.init(name:)) ?? .normal, volume: volume)
        var answer: SoundPlayAnswer?
        connection.run(fetching: { (client) throws(ClientError) in
            let fetched = try client.request(Request(id: .number(1), operation: .soundPlay(request)), as: SoundPlayAnswer.self)
            answer = fetched.0
            return fetched
        }, human: { $0.played ? $0.summary : nil })
        if let answer, !answer.played {
            writeWhole("nookctl: \(answer.summary)\n", to: 2)
            Glibc.exit(ExitCodes.notPlayed)
        }
    }
}

struct SoundStop: ParsableCommand {
    static let configuration = CommandConfiguration.operation(SoundStop.self, abstract: "Stop the sound playing, a card's or one played with no card.")
    @OptionGroup var connection: Connection
    func run() throws { connection.run(.soundStop, as: SoundStopAnswer.self) { $0.summary } }
}

struct SoundVolume: ParsableCommand {
    static let configuration = CommandConfiguration.operation(
        SoundVolume.self,
        abstract: "Set the volume every sound starts from (0 to 100), give it back to nook.toml's sound.volume (default), or show it.",
        discussion: "Quiet hours and an empty room still lower it; it holds until 'default' or a restart of nookd. See docs/sound.md.")
    @OptionGroup var connection: Connection
    // Unconditional: `-1` is a volume out of range, not an option.
    @Argument(parsing: .allUnrecognized, help: "0 to 100, or default; nothing shows it.") var volume: [String] = []

    var setting: SoundVolumeSetting {
        get throws {
            switch volume.count {
            case 0: return .read
            case 1 where volume[0] == "default": return .configured
            case 1:
                guard let level = Int(volume[0]), SoundRequest.volumes.contains(level) else {
                    throw ValidationError("the volume must be 0 to 100, or default; got '\(volume[0])'")
                }
                return .set(level)
            default: throw ValidationError("one volume: 0 to 100, or default; got \(volume.joined(separator: " "))")
            }
        }
    }

    func validate() throws { _ = try setting }

    func run() throws { connection.run(.soundVolume(try setting), as: SoundVolumeAnswer.self) { $0.summary } }
}
