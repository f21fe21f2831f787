import NookActivities
import NookProtocol

/// `nookctl enqueue` read without ArgumentParser, for speed: scripts run it for every event,
/// and building ArgumentParser's command tree (reflection over every subcommand's options)
/// cost more than the whole round trip to nookd (`cli_enqueue_vs_socat` in nook-bench).
///
/// It accepts only what it is sure ArgumentParser reads the same way: each option once,
/// `--name value` or `--name=value`, values that do not start with `-`, and options that pass
/// ``EnqueueOptions/activity()``. Anything else (help, completion scripts, a typo, a bad value)
/// returns nil and goes to ArgumentParser, which owns every message about the command line.
/// `NookctlTests` checks that both readings agree and that this one knows every option.
enum EnqueueCommandLine {
    /// The spellings of every option `Enqueue` declares: the activity's fields, where to send
    /// it, and how (`NookctlTests` checks this against ArgumentParser's reading of `Enqueue`).
    /// Arrays, as in ``GlobalOptions``: a set's first use costs more than a dozen comparisons.
    static let flags: [String] = GlobalOptions.flags + ["--wait"] + ActivityField.allCases.filter { !$0.takesValue }.compactMap(\.flag)
    static let valued: [String] = GlobalOptions.valued + ["--module"] + ActivityField.allCases.filter(\.takesValue).compactMap(\.flag)

    /// The options of `nookctl enqueue ARGUMENTS…` (the arguments after `enqueue`) and the
    /// activity they describe, or nil to let ArgumentParser read the command line.
    static func parse(_ arguments: ArraySlice<String>) -> (options: EnqueueOptions, activity: NookActivity)? {
        var options = EnqueueOptions()
        var seen: [String] = []
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("--") else { return nil }
            var name = argument
            var attached: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                attached = String(argument[argument.index(after: equals)...])
            }
            guard !seen.contains(name) else { return nil }
            seen.append(name)
            if flags.contains(name) {
                guard attached == nil else { return nil }
                setFlag(name, in: &options)
                continue
            }
            guard valued.contains(name), let value = attached ?? rest.popFirst(), !value.hasPrefix("-"),
                  set(name, to: value, in: &options) else { return nil }
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
