import Foundation
import NookProtocol
import NookTestTraits
import Testing

/// README.md's "Over HTTP" examples, read from the file and run as written against a real
/// nook-http and nookd (the board's address replaced by the test's own port).
@Suite(.ownThreads) struct ReadmeHTTPExamplesTests {
    static let address = "127.0.0.1:8722"

    /// The lines of the README's ```sh block that talks to nook-http.
    static func exampleLines() throws -> [String] {
        let lines = try String(contentsOfFile: Built.root + "/README.md", encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var index = 0
        while index < lines.count {
            if lines[index] == "```sh", let close = lines[(index + 1)...].firstIndex(of: "```") {
                let block = Array(lines[(index + 1)..<close])
                if block.contains(where: { $0.contains(address) }) { return block }
                index = close + 1
            } else {
                index += 1
            }
        }
        throw TestFailure("README.md has no ```sh block with \(address)")
    }

    @Test func h1_h2_v1_theReadmesCurlExamplesQueueTheirCardsAndFetchTheGlass() throws {
        let service = try HTTPService()
        let nookd = BlockingNookdCalls(socket: service.socket)
        // Suspended, the cards wait where `list` shows them, however fast the mock display is.
        var suspended = false
        nookd.call(Request(id: .number(1), operation: .suspend(module: nil))) { suspended = (try? $0.get()) != nil }
        #expect(suspended)
        let directory = service.directory + "/readme"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for line in try Self.exampleLines() {
            let command = "cd '\(directory)' && " + line.replacingOccurrences(of: Self.address, with: "127.0.0.1:\(service.port)")
                + " --silent --show-error --fail"
            let (status, output, error) = try runProgram("/bin/bash", ["-c", command])
            #expect(status == 0, "\(line): exit \(status)\n\(output)\(error)")
        }
        var titles: [String] = []
        nookd.call(Request(id: .number(2), operation: .list(module: nil))) { result in
            for module in (try? result.get())?["result"]?["modules"]?.items ?? [] {
                titles += ([module["current"] ?? .null] + (module["pending"]?.items ?? [])).compactMap { $0["title"]?.text }
            }
        }
        #expect(titles.contains("Backup"), "ntfy's example: \(titles)")
        #expect(titles.contains("Build finished"), "the JSON API's example: \(titles)")
        let png = try Data(contentsOf: URL(fileURLWithPath: directory + "/glass.png"))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "glass.png is not a PNG (\(png.count) bytes)")
    }
}
