import Foundation
import NookActivities
import NookProtocol
import NookTestTraits
import Testing

/// Answers one request on a Unix socket with a line the test wrote: a nookd that sends what
/// the real one never would, for nookctl's decoders.
final class OneAnswerServer: @unchecked Sendable {
    let path: String
    private let fd: Int32
    private let thread: Thread

    init(at path: String, result: @escaping @Sendable (RequestID?) -> String) {
        self.path = path
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        listen(fd, 4)
        self.fd = fd
        thread = Thread {
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while read(client, &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
            let id = (try? Request.decode(line).get())?.id
            let answer = Array((result(id) + "\n").utf8)
            _ = answer.withUnsafeBytes { write(client, $0.baseAddress!, $0.count) }
        }
        thread.start()
    }

    deinit { shutdown(fd, Int32(SHUT_RDWR)); close(fd) }
}

/// Every number read from disk or a socket is range-checked before it is converted or used in
/// arithmetic that traps: a time of 1e308 in a history entry once crashed nookctl (SIGILL).
@Suite("C3 U5 numbers out of range are errors naming the field, never a crash", .serialized, .ownThreads)
struct NumberRangeTests {
    static func entryJSON(endedAt: String) -> String {
        #"{"number":1,"activity":{"id":"0B5C4E4E-3E0B-4C8E-9D4B-6D0C1B2A3F4E","title":"crafted","tint":"blue","priority":"normal","dwell":2.4},"#
            + #""module":"default","enqueuedAt":1795444650,"endedAt":\#(endedAt),"ending":"completed","onGlass":true}"#
    }

    @Test func u5_nookctlNamesAHistoryTimeOutOfRangeInsteadOfCrashing() throws {
        let scratch = Scratch()
        for command in [["history"], ["history", "show", "1"]] {
            let server = OneAnswerServer(at: scratch.path + "/fake-\(command.count).sock") { id in
                let result = command.count == 1 ? #"{"entries":[\#(Self.entryJSON(endedAt: "1e308"))],"total":1}"#
                    : #"{"entry":\#(Self.entryJSON(endedAt: "1e308"))}"#
                return ResponseLine.success(id: id, result: try! JSONValue.parse(Array(result.utf8))).encoded()
            }
            let result = try nookctl(command, socket: server.path)
            #expect(result.status != 0 && result.status < 128, "no crash: \(result)")
            #expect(result.error.contains("endedAt") && result.error.contains("1e+308"), "\(result)")
        }
    }

    @Test func u5_nookdDropsAHistoryLineWithATimeOutOfRangeNamingTheFieldAndKeepsTheRest() throws {
        let scratch = Scratch()
        let body = Array(Self.entryJSON(endedAt: "1e308").utf8)
        let good = Array(Self.entryJSON(endedAt: "1795444660").utf8)
        var file: [UInt8] = []
        for (number, line) in [(2, good), (3, body)] {
            let renumbered = Array(String(decoding: line, as: UTF8.self).replacingOccurrences(of: #""number":1"#, with: #""number":\#(number)"#).utf8)
            file += Array(CRC32.hex(CRC32.checksum(renumbered)).utf8) + [UInt8(ascii: " ")] + renumbered + [UInt8(ascii: "\n")]
        }
        try Data(file).write(to: URL(fileURLWithPath: scratch.path + "/history"))
        let config = scratch.file("nook.toml", "[history]\nmax_age = \"3650d\"\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--journal", scratch.path + "/journal", "--config", config])
        #expect(daemon.log.contains("entry.endedAt: must be from 0 to 253402300799, got 1e+308"), "\(daemon.log.suffix(2000))")
        #expect(daemon.log.contains("not a power cut"), "\(daemon.log.suffix(2000))")
        let listed = try nookctl(["history"], socket: daemon.socket)
        #expect(listed.status == 0 && listed.output.contains("#2") && listed.output.contains("crafted"), "\(listed)")
        #expect(daemon.stop().status == 0)
    }

    @Test func c3_everyTimeCountAndReadingInAnAnswerIsRangeChecked() throws {
        let entry = try JSONValue.parse(Array(Self.entryJSON(endedAt: "1795444660").utf8))
        #expect(throws: Never.self) { _ = try HistoryEntry(json: entry) }
        for (field, bad) in [("endedAt", "1e308"), ("enqueuedAt", "-1"), ("shownAt", "1e300")] {
            var text = Self.entryJSON(endedAt: field == "endedAt" ? bad : "1795444660")
            if field == "enqueuedAt" { text = text.replacingOccurrences(of: #""enqueuedAt":1795444650"#, with: #""enqueuedAt":\#(bad)"#) }
            if field == "shownAt" { text = text.replacingOccurrences(of: #""ending""#, with: #""shownAt":\#(bad),"ending""#) }
            do {
                _ = try HistoryEntry(json: JSONValue.parse(Array(text.utf8)))
                Issue.record("\(field) = \(bad) was accepted")
            } catch let error as ProtocolError {
                #expect(error.field == "entry.\(field)" && error.code == .invalid, "\(error)")
            }
        }
        for (total, problem) in [("-1", "must be 0 or more"), ("1e300", "must be a whole number"), ("9007199254740994", "at most 2^53")] {
            do {
                _ = try HistoryAnswer(json: JSONValue.parse(Array(#"{"entries":[],"total":\#(total)}"#.utf8)))
                Issue.record("total = \(total) was accepted")
            } catch let error as ProtocolError {
                #expect(error.field == "result.total" && error.message.contains(problem), "\(error)")
            }
        }
    }
}
