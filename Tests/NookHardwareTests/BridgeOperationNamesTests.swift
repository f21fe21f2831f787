import Foundation
import NookTestTraits
import Testing

/// The bridges and nookctl build requests from the protocol's table of operations
/// (`NookOperation`, `NookOperation.Name.decode`), never by writing a request's `op` as a string
/// and decoding it again (C1): a renamed or removed operation is then a compile error in every
/// client, not a request nookd refuses at run time.
@Suite("C1 the clients of nookd's socket spell no operation's wire name", .cpuBound)
struct BridgeOperationNamesTests {
    /// A request's `op` written by hand: as a JSON member in Swift (`("op", .string(…))`) or in
    /// a JSON text (`"op":"…"`).
    static let handWritten = try! NSRegularExpression(pattern: #"\("op",\s*\.string\(|\\?"op\\?"\s*:\s*\\?""#)

    static func handWrittenOps(in text: String) -> [Int] {
        var lines: [Int] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(line)
            if handWritten.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil { lines.append(number + 1) }
        }
        return lines
    }

    @Test func c1_noBridgeNorNookctlWritesAnOperationsNameAsAString() throws {
        var found: [String] = []
        for directory in ["NookMQTT", "NookHTTP", "NookLCDproc", "NookNotify", "nookctl", "nook-mqtt", "nook-http", "nook-lcdproc", "nook-notify"] {
            let root = repository + "/Sources/" + directory
            let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
            for file in files where file.hasSuffix(".swift") {
                let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
                found += Self.handWrittenOps(in: text).map { "Sources/\(directory)/\(file):\($0)" }
            }
        }
        #expect(found.isEmpty, "requests built from strings: \(found.joined(separator: "\n"))")
    }

    @Test func c1_theScanFindsAnOpWrittenByHandAndPassesTheTablesNames() {
        #expect(Self.handWrittenOps(in: #"members = [("op", .string("dismiss"))]"#) == [1])
        #expect(Self.handWrittenOps(in: "x\nlet line = #\"{\"op\":\"enqueue\"}\"#") == [2])
        #expect(Self.handWrittenOps(in: #"switch NookOperation.Name.quiet.decode(members) {"#).isEmpty)
        #expect(Self.handWrittenOps(in: #"throw Rejection(topic: topic, code: "invalid", field: "op", "is not accepted")"#).isEmpty)
    }
}
