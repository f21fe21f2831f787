import Foundation
import NookLCDproc
import NookTestTraits
import Testing

/// E8: the `menu_*` commands and the `menuevent enter`/`leave` notices `menu_goto` causes,
/// compared line for line with a real LCDd 0.5.9 (`Transcripts/menu.txt`). LCDd's `text`
/// driver has no keys, so `select`, `update`, `plus` and `minus` (sent on a key) are checked
/// against LCDd's source text in MenuTests instead.
@Suite("E8 LCDproc menu transcript against LCDd", .serialized, .ownThreads)
struct MenuTranscriptTests {
    static let script = Bundle.module.path(forResource: "menu", ofType: "txt", inDirectory: "Transcripts")
        ?? (String(#filePath).replacingOccurrences(of: "MenuTranscriptTests.swift", with: "") + "Transcripts/menu.txt")

    /// Everything but `listen`/`ignore`, which come when each server's frame loop gets to them.
    static func lines(_ bytes: [UInt8]) -> [String] {
        String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
            .filter { !$0.hasPrefix("listen ") && !$0.hasPrefix("ignore ") }
    }

    @Test func e8_menuCommandsAndTheirEventsAreLCDdsWordForWord() throws {
        let script = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.script)))
        let reference = try LCDdReference()
        let connection = try TCPConnection(port: reference.port)
        try connection.send(script)
        let expected = Self.lines(connection.readUntilQuiet())
        #expect(expected.count > 40, "LCDd answered only \(expected.count) lines")
        #expect(expected.contains { $0.hasPrefix("menuevent enter") }, "LCDd sent no menu events: \(expected)")

        let model = LCDServerModel(grid: LCDGrid(width: 40, height: 4))
        let client = model.connect()
        var framer = LCDLineFramer()
        var items: [LCDLineFramer.Item] = []
        framer.append(script, into: &items)
        var ours: [String] = []
        for case .line(let line) in items {
            model.receive(line, from: client)
            ours += model.takeOutput().map(\.line)
            if model.isGone(client) { break }
        }
        ours = Self.lines(Array(ours.map { $0 + "\n" }.joined().utf8))
        for (index, (want, got)) in zip(expected, ours).enumerated() where want != got {
            Issue.record("line \(index + 1) (after \(expected.prefix(index).suffix(4))): LCDd said '\(want)', Nook said '\(got)'")
            break
        }
        #expect(ours.count == expected.count, "LCDd: \(expected)\nNook: \(ours)")
    }
}
