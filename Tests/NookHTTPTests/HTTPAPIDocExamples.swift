import Foundation
import NookProtocol
import NookTestTraits
import Testing

/// docs/http-api.md's examples: each ```sh block with the ```json block after it, read from the
/// file each time so the document as written is what the test runs.
struct HTTPAPIDocExample {
    let command: String
    let answer: JSONValue

    static let address = "localhost:8722"

    static func all(document: String = Built.root + "/docs/http-api.md") throws -> [HTTPAPIDocExample] {
        let lines = try String(contentsOfFile: document, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var examples: [HTTPAPIDocExample] = []
        var index = 0
        while index < lines.count {
            guard lines[index] == "```sh" else { index += 1; continue }
            guard let close = lines[(index + 1)...].firstIndex(of: "```"), close + 1 < lines.count, lines[close + 1] == "```json",
                  let end = lines[(close + 2)...].firstIndex(of: "```") else {
                throw TestFailure("docs/http-api.md line \(index + 1): a ```sh block without a ```json answer after it")
            }
            let command = lines[(index + 1)..<close].joined(separator: "\n")
            let json = lines[(close + 2)..<end].joined(separator: "\n")
            examples.append(HTTPAPIDocExample(command: command, answer: try JSONValue.parse(Array(json.utf8))))
            index = end + 1
        }
        return examples
    }

    /// Runs the command with the board's address replaced by `base` (`127.0.0.1:PORT`); its output.
    func run(at base: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", command.replacingOccurrences(of: Self.address, with: base)]
        let output = Pipe.closedOnExec()
        process.standardOutput = output
        process.standardError = output
        try process.runAlone()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitForExit(seconds: 60)
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// What in `actual` differs from the documented answer: the same members at the top, the
    /// documented ones at least further in, the same words (an error's code and field, a title);
    /// ids the command did not choose, times, counts, the sender and whether a card has reached
    /// the glass yet may differ.
    static func differences(documented: JSONValue, actual: JSONValue, path: String = "", command: String, top: Bool = true) -> [String] {
        switch (documented, actual) {
        case (.object(let want), .object(let have)):
            var problems: [String] = []
            let wantKeys = Set(want.map(\.0)), haveKeys = Set(have.map(\.0))
            if top && wantKeys != haveKeys { problems.append("\(path.isEmpty ? "the answer" : path) has \(haveKeys.sorted()), documented \(wantKeys.sorted())") }
            for (key, value) in want {
                guard let other = have.first(where: { $0.0 == key })?.1 else {
                    if !top { problems.append("\(path).\(key) is missing") }
                    continue
                }
                // Who, when, and where on the glass: these depend on the machine and the moment.
                if ["sender", "until", "enqueuedAt", "shownAt", "endedAt", "number", "total", "state", "onScreen", "onGlass", "dwell"].contains(key) { continue }
                problems += differences(documented: value, actual: other, path: path + "." + key, command: command, top: false)
            }
            return problems
        case (.array(let want), .array(let have)):
            if want.isEmpty != have.isEmpty { return ["\(path) has \(have.count) items, documented \(want.count)"] }
            return zip(want, have).flatMap { differences(documented: $0, actual: $1, path: path + "[]", command: command, top: false) }
        case (.string(let want), .string(let have)):
            if NookActivityIDText.isID(want) && !command.contains(want) { return NookActivityIDText.isID(have) ? [] : ["\(path) is '\(have)', not an id"] }
            return want == have ? [] : ["\(path) is '\(have)', documented '\(want)'"]
        case (.number, .number): return []
        case (.bool(let want), .bool(let have)): return want == have ? [] : ["\(path) is \(have), documented \(want)"]
        default: return ["\(path) is \(actual.serialized), documented \(documented.serialized)"]
        }
    }
}

enum NookActivityIDText {
    static func isID(_ text: String) -> Bool { UUID(uuidString: text) != nil }
}
