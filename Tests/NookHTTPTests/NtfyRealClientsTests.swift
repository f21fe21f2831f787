import Foundation
import NookHTTP
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// Where ntfy's real clients run: `aiontfy` and Home Assistant need Python 3.12 or later, which
/// Debian 12's is not. The suite inside the Debian 13 root (`Hardware/dev/debian-swift test`)
/// has them on its own `python3`; on the host they run in that root
/// (`Hardware/dev/debian-roots`, `$NOOK_ROOTS/trixie-amd64`) through `Hardware/dev/debian-chroot`,
/// where `Hardware/dev/install-deps` installs them (pinned, as every PyPI package of the suite).
enum NtfyClientPython {
    static let root = (ProcessInfo.processInfo.environment["NOOK_ROOTS"] ?? "/var/cache/nook/roots") + "/trixie-amd64"
    static let script = "Tests/NookHTTPTests/HomeAssistant"
    static let probe = "import sys, aiontfy, homeassistant; sys.exit(0 if sys.version_info >= (3, 12) else 1)"

    /// The command that runs a Python with both, or nil.
    static let prefix: [String]? = {
        if (try? Senders.run("/usr/bin/env", ["python3", "-c", probe]).status) == 0 { return ["/usr/bin/env"] }
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: root + "/usr/bin/python3") else { return nil }
        let chroot = [Built.root + "/Hardware/dev/debian-chroot", root]
        return (try? Senders.run(chroot[0], Array(chroot.dropFirst()) + ["python3", "-c", probe]).status) == 0 ? chroot : nil
    }()

    static let missing = "needs aiontfy and homeassistant on a Python of 3.12 or later: the Debian 13 root at \(root) with "
        + "Hardware/dev/install-deps' PyPI pins (run Hardware/dev/debian-roots, then Hardware/dev/install-deps as root)"

    /// Whether that Python has `module` too (`demetriek`, for LaMetricRealClientsTests).
    static func has(_ module: String) -> Bool {
        guard let prefix else { return false }
        return (try? Senders.run(prefix[0], Array(prefix.dropFirst()) + ["python3", "-c", "import \(module)"]).status) == 0
    }

    /// Runs `script` (`ntfy_clients.py`, `lametric_clients.py`) to its end: its exit status and
    /// its transcript (the config folder is shown to the root at the same path, so Home
    /// Assistant's log stays readable here).
    static func run(_ arguments: [String], script name: String = "ntfy_clients.py", folder: String,
                    environment: [String: String]) throws -> (status: Int32, transcript: String) {
        guard let prefix else { throw HarnessFailure(missing) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: prefix[0])
        let script = Built.root + "/" + Self.script
        if prefix.count > 1 {
            // In the root: the script's folder and the test's folder bound in, the rest passed.
            let binds = ["--bind", "\(script):/opt/nook-ntfy-clients", "--bind", "\(folder):\(folder)"]
            let envs = environment.flatMap { ["--env", "\($0.key)=\($0.value)"] }
            process.arguments = Array(prefix.dropFirst()) + binds + envs + ["python3", "-B", "/opt/nook-ntfy-clients/" + name] + arguments
        } else {
            process.arguments = ["python3", "-B", script + "/" + name] + arguments
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe.closedOnExec()
        process.standardOutput = output
        process.standardError = output
        try process.runAlone()
        let transcript = String(decoding: output.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
        process.waitForExit(seconds: TestBounds.seconds(600))
        return (process.terminationStatus, transcript)
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

    @Test(.enabled(if: NtfyClientPython.prefix != nil, .init(rawValue: NtfyClientPython.missing)))
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
    @Test(.enabled(if: NtfyClientPython.prefix != nil, .init(rawValue: NtfyClientPython.missing)),
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
