import NookActivities
import NookProtocol
import NookSystem

/// `nookctl enqueue` read without ArgumentParser, for speed: scripts run it for every event,
/// and building ArgumentParser's command tree (reflection over every subcommand's options)
/// cost more than the whole round trip to nookd (`cli_enqueue_vs_socat` in nook-bench).
///
/// It reads the words with the shared ``FlagReader`` and accepts only what it is sure
/// ArgumentParser reads the same way: each option once, `--name value` or `--name=value`, values
/// that do not start with `-`, and options that pass ``EnqueueOptions/activity()``. Anything
/// else (help, completion scripts, a typo, a bad value) returns nil and goes to ArgumentParser,
/// which owns every message about the command line.
/// `NookctlTests` checks that both readings agree and that this one knows every option.
enum EnqueueCommandLine {
    /// The spellings of every option `Enqueue` declares: the activity's fields, where to send
    /// it, and how (`NookctlTests` checks this against ArgumentParser's reading of `Enqueue`).
    /// Arrays, as in ``GlobalOptions``: a set's first use costs more than a dozen comparisons.
    static let flags: [String] = GlobalOptions.flags + ["--wait"] + ActivityField.allCases.filter { !$0.takesValue }.compactMap(\.flag)
    static let valued: [String] = GlobalOptions.valued + ["--module"] + ActivityField.allCases.filter(\.takesValue).compactMap(\.flag)

    /// The same options as the shared reader's table (help is ArgumentParser's: this path
    /// never prints any).
    static let table: [FlagReader.Option] = flags.map { FlagReader.Option($0, help: "") } + valued.map { FlagReader.Option($0, value: "VALUE", help: "") }

    /// The options of `nookctl enqueue ARGUMENTS…` (the arguments after `enqueue`) and the
    /// activity they describe, or nil to let ArgumentParser read the command line.
    static func parse(_ arguments: ArraySlice<String>) -> (options: EnqueueOptions, activity: NookActivity)? {
        // `-` as the flag prefix: a value that starts with one is left to ArgumentParser.
        guard let read = try? FlagReader.read(Array(arguments), options: table, flagPrefix: "-") else { return nil }
        var options = EnqueueOptions()
        var seen: [String] = []
        for flag in read {
            guard !seen.contains(flag.name) else { return nil }
            seen.append(flag.name)
            guard let value = flag.value else {
                setFlag(flag.name, in: &options)
                continue
            }
            guard !value.hasPrefix("-"), set(flag.name, to: value, in: &options) else { return nil }
        }
        guard seen.contains("--title"), case .success(let activity) = options.activity() else { return nil }
        return (options, activity)
    }

    private static func setFlag(_ name: String, in options: inout EnqueueOptions) {
        switch name {
        case "--json": options.json = true
        case "--blocker": options.blocker = true
        case "--transient": options.transient = true
        case "--action": options.action = true
        default: options.wait = true
        }
    }

    /// False if a number does not read as one (ArgumentParser's `Double(String)`).
    private static func set(_ name: String, to value: String, in options: inout EnqueueOptions) -> Bool {
        switch name {
        case "--socket": options.socket = value
        case "--title": options.title = value
        case "--subtitle": options.subtitle = value
        case "--icon": options.icon = value
        case "--tint": options.tint = value
        case "--key": options.key = value
        case "--priority": options.priority = value
        case "--module": options.module = value
        case "--id": options.id = value
        case "--sound": options.sound = value
        case "--sound-repeat": options.soundRepeat = value
        default:
            guard let number = Double(value) else { return false }
            switch name {
            case "--dwell": options.dwell = number
            case "--timeout": options.timeout = number
            case "--progress": options.progress = number
            default: options.expiresAfter = number
            }
        }
        return true
    }
}
