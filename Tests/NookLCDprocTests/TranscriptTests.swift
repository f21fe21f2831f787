import Foundation
import NookLCDproc
import NookTestTraits
import Testing

/// E8: every command, answered as LCDd 0.5.9 answers it. The script (`Transcripts/commands.txt`)
/// goes to a real LCDd started for the test and to Nook; the answers must be the same lines.
/// `listen`, `ignore` and `menuevent` notices come when each server's frame loop gets to them,
/// so they are compared apart from the answers (`info` names the driver, so it is not in the script).
@Suite("E8 LCDproc transcript against LCDd", .serialized, .ownThreads)
struct TranscriptTests {
    static let script = Bundle.module.path(forResource: "commands", ofType: "txt", inDirectory: "Transcripts")
        ?? (String(#filePath).replacingOccurrences(of: "TranscriptTests.swift", with: "") + "Transcripts/commands.txt")

    static func answers(_ bytes: [UInt8]) -> [String] {
        String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
            .filter { !$0.hasPrefix("listen ") && !$0.hasPrefix("ignore ") && !$0.hasPrefix("menuevent ") }
    }

    static func model(_ script: [UInt8]) -> [String] {
        let model = LCDServerModel(grid: LCDGrid(width: 40, height: 4))
        let client = model.connect()
        var framer = LCDLineFramer()
        var items: [LCDLineFramer.Item] = []
        framer.append(script, into: &items)
        var lines: [String] = []
        for case .line(let line) in items {
            model.receive(line, from: client)
            lines += model.takeOutput().map(\.line)
            if model.isGone(client) { break }
        }
        return answers(Array(lines.map { $0 + "\n" }.joined().utf8))
    }

    @Test func e8_theModelAnswersTheScriptAsLCDdDoes() throws {
        let script = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.script)))
        let reference = try LCDdReference()
        let connection = try TCPConnection(port: reference.port)
        try connection.send(script)
        let expected = Self.answers(connection.readUntilQuiet())
        #expect(expected.count > 150, "LCDd answered only \(expected.count) lines")
        let ours = Self.model(script)
        for (index, (want, got)) in zip(expected, ours).enumerated() where want != got {
            Issue.record("answer \(index + 1): LCDd said '\(want)', Nook said '\(got)'")
            break
        }
        #expect(ours.count == expected.count)
    }
}
