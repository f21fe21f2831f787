/// `--socket PATH` and `--json` belong to every subcommand, but people type global options
/// first (`git -C DIR log`, `systemctl --user status`): `nookctl --socket P enqueue …` is
/// read as `nookctl enqueue --socket P …`.
enum GlobalOptions {
    static let valued: Set<String> = ["--socket"]
    static let flags: Set<String> = ["--json"]

    /// The arguments (after the program name) with global options that come before the
    /// subcommand moved to just after it. Anything else before the subcommand (`--help`,
    /// `--generate-completion-script`, a typo) leaves the command line as it was, for
    /// ArgumentParser to answer.
    static func movedAfterSubcommand(_ arguments: [String]) -> [String] {
        var global: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if flags.contains(argument) {
                global.append(argument)
                index += 1
            } else if valued.contains(name) && argument.contains("=") {
                global.append(argument)
                index += 1
            } else if valued.contains(argument), index + 1 < arguments.count {
                global += [argument, arguments[index + 1]]
                index += 2
            } else {
                break
            }
        }
        guard !global.isEmpty, index < arguments.count, !arguments[index].hasPrefix("-") else { return arguments }
        return [arguments[index]] + global + arguments[(index + 1)...]
    }
}
