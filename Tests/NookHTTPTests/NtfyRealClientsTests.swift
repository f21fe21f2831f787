import Foundation
import NookHTTP
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// ntfy's real clients (`aiontfy`, Home Assistant's `ntfy` integration) in Debian 13's Python
/// (``DebianPython``).
enum NtfyClientPython {
    static let ready = DebianPython.has("aiontfy")
    static let missing = DebianPython.missing("aiontfy and homeassistant")

    /// Runs `script` (`ntfy_clients.py`, `lametric_clients.py`) to its end: its exit status and
    /// its transcript.
    static func run(_ arguments: [String], script name: String = "ntfy_clients.py", folder: String,
                    environment: [String: String]) throws -> (status: Int32, transcript: String) {
        try DebianPython.run(name, arguments, folder: folder, environment: environment)
    }
}

/// M5 proven with ntfy's real clients against the built nook-http and nookd: `aiontfy` itself,
/// and a Home Assistant core from PyPI whose `ntfy` integration is added by its config flow and
/// whose services put cards on the glass and end them. What became of each card is read from
/// nookd's own events, never from what the client says.
@Suite(.serialized, .ownThreads) struct NtfyRealClientsTests {
    /// A bench with a token file: a publish token named `name`, and a read token.
    static func bench(_ name: String) throws -> (bench: SenderBench, token: String, read: String, folder: String) {
        let folder = NSTemporaryDirectory() + "nook-ntfy-clients-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var lines = "", tokens: [String] = []
        for (who, scopes) in [(name, "publish"), ("viewer", "read")] {
            let made = try Senders.run(Built.directory + "/nook-http", ["hash-token", who, scopes])
            lines += made.output
            tokens.append(try #require(made.error.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }))
        }
        try lines.write(toFile: folder + "/http.tokens", atomically: true, encoding: .utf8)
        chmod(folder + "/http.tokens", 0o600)
        let bench = try SenderBench(config: "[http]\ntokens = \"\(folder)/http.tokens\"\n")
        return (bench, tokens[0], tokens[1], folder)
    }

    /// Reads nookd's events until each title was queued and each `(title, reason)` ended so.
    static func expect(_ bench: SenderBench, queued: [String], ended: [String: String], transcript: String) throws {
        var seen: [String] = [], endings: [String: String] = [:]
        _ = try bench.watch.events { event in
            if event.name == "enqueued" { seen.append(event.title) }
            if ["hidden", "rejected"].contains(event.name), let reason = event.reason { endings[event.title] = endings[event.title] ?? reason }
            return Set(queued).isSubset(of: seen) && ended.keys.allSatisfy { endings[$0] != nil }
        }
        #expect(Array(seen.prefix(queued.count)) == queued, "\(seen)\n\(transcript)")
        for (title, reason) in ended { #expect(endings[title] == reason, "\(title): \(endings[title] ?? "not ended")\n\(transcript)") }
    }

    @Test(.enabled(if: NtfyClientPython.ready, .init(rawValue: NtfyClientPython.missing)))
    func m5_aiontfyReadsTheAccountChecksATopicPublishesClearsDeletesAndReadsNooksRefusals() throws {
        let (bench, token, read, folder) = try Self.bench("aiontfy")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try NtfyClientPython.run(["aiontfy", bench.baseURL, token, "home"], folder: folder, environment: ["NOOK_READ_TOKEN": read])
        #expect(run.status == 0 && run.transcript.hasSuffix("DONE\n"), "\(run.transcript)")
        try Self.expect(bench, queued: ["aiontfy card", "aiontfy second"], ended: ["aiontfy card": "dismissed", "aiontfy second": "cancelled"],
                        transcript: run.transcript)
    }

    /// One Home Assistant start for every check (its start is most of the test's time): the
    /// setup with a wrong token, then the right one, the topic, and the services.
    @Test(.enabled(if: NtfyClientPython.ready, .init(rawValue: NtfyClientPython.missing)),
          .oncePerTestRun("a Home Assistant start is most of its time"))
    func m5_homeAssistantsNtfyIntegrationSetsUpAndItsServicesPutAndEndCards() throws {
        let (bench, token, read, folder) = try Self.bench("homeassistant")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let config = folder + "/hass"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        let run = try NtfyClientPython.run(["homeassistant", bench.baseURL, token, "home", config], folder: folder,
                                           environment: ["NOOK_READ_TOKEN": read])
        let log = (try? String(contentsOfFile: config + "/hass.out", encoding: .utf8)) ?? ""
        #expect(run.status == 0 && run.transcript.hasSuffix("DONE\n"), "\(run.transcript)\nHome Assistant's log:\n\(log.suffix(6000))")
        try Self.expect(bench, queued: ["Washer done", "Door open", "Window open"], ended: ["Door open": "dismissed", "Window open": "cancelled"],
                        transcript: run.transcript)
    }
}
