import ArgumentParser
import NookProtocol
@testable import nookctl
import Testing

/// nookctl's rows from operations to commands (C2), which each file of commands declares beside
/// its commands: no operation twice, no command for two operations.
@Suite("C2 nookctl's command rows name each operation once")
struct OperationCommandRowsTests {
    @Test func c2_noOperationHasTwoCommandsAndNoCommandSendsTwoOperations() {
        let rows = OperationCommands.rows
        for name in NookOperation.Name.allCases {
            #expect(rows.filter { $0.0 == name }.count <= 1, "\(name.rawValue) has \(rows.filter { $0.0 == name }.count) commands")
        }
        let commands = rows.map { ObjectIdentifier($0.1) }
        #expect(Set(commands).count == commands.count, "a command is in two rows")
        #expect(rows.count == NookOperation.Name.allCases.filter { $0.commandWords != nil }.count)
    }
}
