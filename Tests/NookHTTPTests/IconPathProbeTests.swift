import Foundation
import NookHTTP
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// H4 with R3: an activity's icon may name a file for nookd to read, and any publish token may
/// send one. Outside the icon directories every path gets the same answer, whether a file is
/// there or not, a directory or nothing at all: the answers tell nothing of the board's files.
@Suite("H4 icon paths tell nothing of the board's files", .serialized, .ownThreads)
struct IconPathProbeTests {
    @Test func h4_anIconPathOutsideTheIconDirectoriesIsOneAnswerWhetherAFileIsThereOrNot() throws {
        let place = NSTemporaryDirectory() + "nook-icon-probe-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: place + "/icons", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: place + "/private", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: place) }
        try "secret".write(toFile: place + "/private/notes.txt", atomically: true, encoding: .utf8)
        symlink(place + "/private/notes.txt", place + "/icons/link.png")
        let nookd = try NativeAPINookd(config: "[daemon]\nicon_directories = [\"\(place)/icons\"]\n")
        var api = NativeAPIClient(socket: nookd.socket)
        api.caller = HTTPCaller(name: "grafana", scopes: [.publish])
        let probes = [place + "/private/notes.txt", place + "/private/missing.txt", place + "/nothing/here.png", place + "/private",
                      place + "/icons/../private/notes.txt", place + "/icons/../private/missing.txt", "/etc/hostname", "/root/x",
                      "/proc/self/environ", "/nonexistent/x.png"]
        var answers: Set<String> = []
        for path in probes {
            let body = JSONValue.object([("title", .string("probe")), ("icon", .string(path))]).serialized
            let answer = try api.send("POST", "/api/v1/activities", body: body)
            let error = answer.error
            #expect(answer.status == 422 && error.field == "icon", "\(path): \(answer.json)")
            answers.insert("\(answer.status) \(error.code ?? "") \(error.field ?? "") \((error.message ?? "").replacingOccurrences(of: path, with: "PATH"))")
        }
        #expect(answers.count == 1, "the answers differ by path:\n\(answers.sorted().joined(separator: "\n"))")
        // Inside the icon directories a missing file is still said to be missing: those are icons.
        let missing = try api.send("POST", "/api/v1/activities", body: #"{"title":"x","icon":"\#(place)/icons/gone.png"}"#)
        #expect(missing.status == 422 && missing.error.message?.contains("no such file") == true, "\(missing.json)")
    }
}
