import Foundation
import NookActivities
import NookHTTP
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// M4 proven with LaMetric's real clients against the built nook-http and nookd, over nook-http's
/// own TLS on port 4343 of a loopback address: `demetriek` itself, and a Home Assistant core from
/// PyPI whose `lametric` integration is added by its config flow's manual entry. The Python side
/// runs as ntfy's does (``NtfyClientPython``); what became of each card is read from nookd's
/// own events, and the rotation's turns from nookd's status.
@Suite(.serialized, .ownThreads) struct LaMetricRealClientsTests {
    static let ready = DebianPython.has("demetriek") && LaMetricBench.openssl != nil
    static let missing = DebianPython.missing("demetriek and homeassistant") + ", and openssl"

    /// A LaMetric bench with three apps in the rotation, for next and previous, and a
    /// `[brightness]` table, so that the brightness a client sets is nookd's to set.
    static func bench() throws -> LaMetricBench {
        let lametric = try LaMetricBench.onPort4343(nookdConfig: "[brightness]\nactive = 100\nidle = 60\n")
        for name in ["weather", "clock", "power"] {
            try lametric.bench.request(.appSet(NookApp(name: name, content: .text(name))))
        }
        return lametric
    }

    /// The cards nookd shows or showed with these titles, as it holds them (live, else its history).
    static func cards(_ lametric: LaMetricBench, _ titles: [String]) throws -> [String: NookActivity] {
        let history = try HistoryAnswer(json: lametric.bench.request(.history(HistoryQuery()))).entries.map(\.activity)
        var found: [String: NookActivity] = [:]
        for card in try lametric.bench.cards() + history where titles.contains(card.title) { found[card.title] = found[card.title] ?? card }
        return found
    }

    static func run(_ lametric: LaMetricBench, _ arguments: [String]) throws -> (status: Int32, transcript: String) {
        let host = String(lametric.tlsAddress.split(separator: ":")[0])
        return try NtfyClientPython.run([arguments[0], host, lametric.key, lametric.bench.baseURL] + arguments.dropFirst(),
                                        script: "lametric_clients.py", folder: lametric.folder, environment: ["NOOK_READ_TOKEN": lametric.read])
    }

    @Test(.enabled(if: ready, .init(rawValue: missing)))
    func m4_demetriekReadsTheDeviceNotifiesWithEveryFrameKindListsDismissesAndTurnsTheApps() throws {
        let lametric = try Self.bench()
        defer { lametric.remove() }
        let run = try Self.run(lametric, ["demetriek"])
        #expect(run.status == 0 && run.transcript.hasSuffix("DONE\n"), "\(run.transcript)\n\(lametric.bench.service.logText.suffix(3000))")
        try NtfyRealClientsTests.expect(lametric.bench, queued: ["demetriek text", "demetriek goal", "▁▄▂█▁"],
                                        ended: ["demetriek goal": "dismissed"], transcript: run.transcript)
        let cards = try Self.cards(lametric, ["demetriek text", "demetriek goal", "▁▄▂█▁"])
        let text = try #require(cards["demetriek text"])
        #expect(text.subtitle == "second frame" && text.priority == .high && text.systemImage == "info.circle", "\(text)")
        let goal = try #require(cards["demetriek goal"])
        #expect(goal.progress == 0.25 && goal.subtitle == "30 / 120 km", "goalData is the progress: \(goal)")
        let chart = try #require(cards["▁▄▂█▁"])
        #expect(chart.isBlocker && chart.tint == .named(.red), "cycles 0 stays until dismissed; critical is red: \(chart)")
        // demetriek's sound is the card's (B4), played as the nearest chime.
        #expect(text.sound == "win", "\(text)")
        // What the glass does not show was said, in the answer and the log.
        #expect(lametric.bench.service.logText.contains("icon 'a7956' is not a built-in icon"))
    }

    /// One Home Assistant start for every check (its start is most of the test's time).
    @Test(.enabled(if: ready, .init(rawValue: missing)),
          .oncePerTestRun("a Home Assistant start is most of its time"))
    func m4_homeAssistantsLaMetricIntegrationSetsUpByManualEntryAndItsServicesAndEntitiesWork() throws {
        let lametric = try Self.bench()
        defer { lametric.remove() }
        let config = lametric.folder + "/hass"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        let run = try Self.run(lametric, ["homeassistant", config])
        let log = (try? String(contentsOfFile: config + "/hass.out", encoding: .utf8)) ?? ""
        #expect(run.status == 0 && run.transcript.hasSuffix("DONE\n"), "\(run.transcript)\nHome Assistant's log:\n\(log.suffix(6000))")
        try NtfyRealClientsTests.expect(lametric.bench, queued: ["Connected to Home Assistant!", "HA message", "▁▁▃▃▄█", "HA notify"], ended: [:],
                                        transcript: run.transcript)
        let message = try #require(try Self.cards(lametric, ["HA message"])["HA message"])
        #expect(message.priority == .high && message.systemImage == "exclamationmark.triangle" && message.dwell == .milliseconds(4800), "\(message)")
        // The brightness and the volume Home Assistant set are the board's; that no sound output
        // plays at the volume was said.
        let status = try StatusAnswer(json: lametric.bench.request(.status))
        #expect(status.brightness?.percentSet == 40)
        #expect(status.sound?.volume == 30 && status.sound?.volumeSet == true, "\(String(describing: status.sound))")
        #expect(lametric.bench.service.logText.contains("LaMetric audio: volume: no sound output is configured"))
    }
}
