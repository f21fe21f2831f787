import ArgumentParser
import NookProtocol
@testable import nookctl
import Testing

/// nookctl's subcommands and the protocol's table of operations (C2: one subcommand per
/// operation): every operation the table offers on the command line is a subcommand with the
/// table's words, every subcommand is an operation's or one of nookctl's own, and the ones
/// the table keeps for bridges are not subcommands.
@Suite("C2 nookctl has one subcommand per operation of the table")
struct OperationCommandTests {
    /// Every command under `command`, by the words that run it (ArgumentParser's own tree).
    static func tree(_ command: ParsableCommand.Type, under words: [String] = []) -> [(words: [String], command: ParsableCommand.Type)] {
        command.configuration.subcommands.flatMap { sub -> [(words: [String], command: ParsableCommand.Type)] in
            let path = words + [sub.configuration.commandName ?? "?"]
            return [(path, sub)] + tree(sub, under: path)
        }
    }

    static func same(_ one: ParsableCommand.Type?, _ other: ParsableCommand.Type?) -> Bool {
        one.map(ObjectIdentifier.init) == other.map(ObjectIdentifier.init)
    }

    @Test(arguments: NookOperation.Name.allCases)
    func c2_eachOperationIsTheSubcommandTheTableNamesOrNone(name: NookOperation.Name) {
        let tree = Self.tree(Nookctl.self)
        switch name.commandWords {
        case let words?:
            let found = tree.filter { $0.words == words }
            #expect(found.count == 1, "nookctl \(words.joined(separator: " ")) (\(name.rawValue)): found \(found.count)")
            #expect(Self.same(found.first?.command, name.command), "nookctl \(words.joined(separator: " ")) is not \(name.rawValue)'s command")
        case nil:
            #expect(name.command == nil, "\(name.rawValue) is for bridges only, yet nookctl has a command for it")
            #expect(!tree.contains { Self.same($0.command, name.command) || $0.words == [name.rawValue] }, "\(name.rawValue)")
        }
    }

    @Test func c2_everySubcommandSendsAnOperationOrIsNookctlsOwnOrAGroup() {
        let operations = NookOperation.Name.allCases.compactMap { name in name.command.map { (name, $0) } }
        for (words, command) in Self.tree(Nookctl.self) {
            if let (name, _) = operations.first(where: { Self.same($0.1, command) }) {
                #expect(name.commandWords == words, "nookctl \(words.joined(separator: " ")) sends \(name.rawValue), which the table runs as \(name.commandWords ?? [])")
            } else if let group = OperationCommands.group(words.last ?? ""), Self.same(group, command) {
                #expect(!command.configuration.subcommands.isEmpty, "the group \(words) holds no operation")
            } else {
                #expect(OperationCommands.local.contains { Self.same($0, command) },
                        "nookctl \(words.joined(separator: " ")) is neither an operation of the table nor one of nookctl's own subcommands")
            }
        }
    }
}
