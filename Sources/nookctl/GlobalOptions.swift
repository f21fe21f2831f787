/// `--socket PATH` and `--json` belong to every subcommand, but people type global options
/// first (`git -C DIR log`, `systemctl --user status`): `nookctl --socket P enqueue …` is
/// read as `nookctl enqueue --socket P …`.
enum GlobalOptions {
    // Arrays, not sets: every `nookctl enqueue` reads them, and the first use of a set type
    // in a process costs its generic metadata (start-up is most of that command's time).
    static let valued = ["--socket"]
    static let flags = ["--json"]

    /// The arguments (after the program name) with global options that come before the
    /// subcommand moved to just after it. Anything else before the subcommand (`--help`,
    /// `--generate-completion-script`, a typo) leaves the command line as it was, for
    /// ArgumentParser to answer.
    static func movedAfterSubcommand(_ arguments: [String]) -> [String] {
        var global: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let name = argument.firstIndex(of: "=").map { String(argument[..<$0]) } ?? argument
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
        // A group's subcommand (`app set`, `history show`) takes them, not the group: the group
        // alone would read the next word as an argument of its default subcommand.
        var words = 1
        if OperationCommands.group(arguments[index]) != nil, index + 1 < arguments.count, !arguments[index + 1].hasPrefix("-") { words = 2 }
        return Array(arguments[index..<(index + words)]) + global + Array(arguments[(index + words)...])
    }
}
