import ArgumentParser
import NookProtocol

/// nookctl's subcommands come from the protocol's table of operations
/// (``NookOperation/Name``): one per operation the table offers on the command line, named and
/// grouped as the table says, in its order.
extension NookOperation.Name {
    /// The subcommand that sends this operation; nil for one the table keeps for bridges.
    var command: ParsableCommand.Type? {
        OperationCommands.rows.first { $0.0 == self }?.1
    }
}

enum OperationCommands {
    /// Each operation's subcommand: the rows each file of commands declares beside them
    /// (`cardCommands` in CardCommands.swift …). A new operation's command goes into its
    /// file's rows; only a new file's rows are added here. OperationCommandTests checks that
    /// every operation the table offers on the command line has exactly one.
    static var rows: [(NookOperation.Name, ParsableCommand.Type)] {
        enqueueCommands + cardCommands + updateCommands + moduleCommands + statusCommands + homeCommands + historyCommands
            + screenshotCommands + appCommands + soundCommands
    }

    /// A group of subcommands (`nookctl history …`): the command holding them, by its word.
    static func group(_ word: String) -> ParsableCommand.Type? {
        switch word {
        case "history": History.self
        case "app": Apps.self
        case "sound": Sound.self
        default: nil
        }
    }

    /// nookctl's subcommands that send no operation (they answer from nookctl itself).
    static var local: [ParsableCommand.Type] { [Icons.self] }

    /// The subcommands directly under `words` (nookctl's own for none), in the table's order:
    /// an operation's command, or a group's, where the first of its operations would be.
    static func subcommands(under words: [String] = []) -> [ParsableCommand.Type] {
        var commands: [ParsableCommand.Type] = []
        var groups: [String] = []
        for name in NookOperation.Name.allCases {
            guard let path = name.commandWords, path.count > words.count, Array(path.prefix(words.count)) == words else { continue }
            if path.count == words.count + 1 {
                if let command = name.command { commands.append(command) }
            } else if !groups.contains(path[words.count]), let group = group(path[words.count]) {
                groups.append(path[words.count])
                commands.append(group)
            }
        }
        return commands
    }

    /// The operation a subcommand sends, if it sends one.
    static func operation(of command: ParsableCommand.Type) -> NookOperation.Name? {
        NookOperation.Name.allCases.first { $0.command.map(ObjectIdentifier.init) == ObjectIdentifier(command) }
    }
}

extension CommandConfiguration {
    /// The configuration of an operation's subcommand (``NookOperation/Name/command``): named
    /// as the table says.
    static func operation(_ command: ParsableCommand.Type, abstract: String, discussion: String = "") -> CommandConfiguration {
        CommandConfiguration(commandName: OperationCommands.operation(of: command)?.commandWords?.last, abstract: abstract, discussion: discussion)
    }
}
