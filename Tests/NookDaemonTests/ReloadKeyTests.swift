import Foundation
import NookActivities
import NookConfig
@testable import NookDaemon
import NookDisplay
import NookRender
import NookTestTraits
import Testing

/// N1: a SIGHUP that changes any key of nook.toml either applies it or names it, in the log, as
/// needing a restart: no key keeps its old value unannounced. The walk goes through the config
/// reader's own table of keys, so a key added to the reader is walked too.
@Suite("N1 every config key is applied or named as needing a restart at a reload", .ownThreads)
struct ReloadKeyTests {
    /// Two valid values of a key, as TOML, and the other keys it needs beside it.
    struct Sample {
        var from: String
        var to: String
        var beside: [String: String] = [:]
    }

    static let proximity = ["proximity.device": "\"iio:device0\""]
    static let presenceInput = ["proximity.device": "\"iio:device0\"", "proximity.threshold": "100", "proximity.hysteresis": "5",
                                "proximity.presence_threshold": "50"]
    static let ambientSensor = ["brightness.ambient_sensor": "\"tsl2561\""]
    static let i2cLEDs = ["led.chip": "\"is31fl3731\""]
    static let button = ["gpio.*.role": "\"open\"", "gpio.*.line": "\"BTN\""]

    /// Every key of ``DaemonConfig/keys``, by its pattern there.
    static func samples(themeFiles: (String, String)) -> [String: Sample] {
        var samples: [String: Sample] = [
            "daemon.socket": Sample(from: "\"/run/a.sock\"", to: "\"/run/b.sock\""),
            "daemon.socket_group": Sample(from: "\"nook\"", to: "\"users\""),
            "daemon.socket_mode": Sample(from: "\"0660\"", to: "\"0600\""),
            "daemon.allowed_uids": Sample(from: "[1000]", to: "[1001]"),
            "daemon.allowed_groups": Sample(from: "[\"nook\"]", to: "[\"users\"]"),
            "daemon.admin_group": Sample(from: "\"wheel\"", to: "\"adm\""),
            "daemon.relay_users": Sample(from: "[\"root\"]", to: "[\"1000\"]"),
            "daemon.icon_directories": Sample(from: "[\"/usr/share/icons\"]", to: "[\"/opt/icons\"]"),
            "daemon.max_connections": Sample(from: "64", to: "65"),
            "daemon.max_connections_per_user": Sample(from: "8", to: "9"),
            "daemon.partial_line_timeout": Sample(from: "10", to: "20"),
            "daemon.idle_timeout": Sample(from: "300", to: "30"),
            "daemon.unread_timeout": Sample(from: "30", to: "60"),
            "daemon.max_buffered_bytes": Sample(from: "1048576", to: "2097152"),
            "daemon.journal": Sample(from: "\"/var/lib/nook/journal\"", to: "\"/var/lib/nook/other\""),
            "daemon.log_level": Sample(from: "\"info\"", to: "\"debug\""),
            "journal.sync": Sample(from: "\"ack\"", to: "\"interval\""),
            "display.backend": Sample(from: "\"mock\"", to: "\"fbdev\""),
            "display.size": Sample(from: "\"1280x400\"", to: "\"800x480\""),
            "display.frames": Sample(from: "\"/tmp/a\"", to: "\"/tmp/b\""),
            "display.frames_limit": Sample(from: "10", to: "20"),
            "display.rotation": Sample(from: "0", to: "90"),
            "display.refresh_hz": Sample(from: "60", to: "30"),
            "display.blank_after_s": Sample(from: "60", to: "120"),
            "display.card": Sample(from: "\"/dev/dri/card0\"", to: "\"/dev/dri/card1\""),
            "display.fbdev": Sample(from: "\"/dev/fb0\"", to: "\"/dev/fb1\""),
            "display.connector": Sample(from: "\"HDMI-A-1\"", to: "\"DSI-1\""),
            "display.mode": Sample(from: "\"1280x400@60\"", to: "\"800x480\""),
            "display.page_flip": Sample(from: "true", to: "false"),
            "theme.appearance": Sample(from: "\"dark\"", to: "\"light\""),
            "theme.file": Sample(from: "\"\(themeFiles.0)\"", to: "\"\(themeFiles.1)\""),
            "theme.corner_radius": Sample(from: "0.1", to: "0.2"),
            "theme.font": Sample(from: "\"DejaVu Sans\"", to: "\"Cantarell\""),
            "theme.icon_font": Sample(from: "\"DejaVu Sans\"", to: "\"Cantarell\""),
            "theme.title_scale": Sample(from: "1.0", to: "1.5"),
            "theme.subtitle_scale": Sample(from: "1.0", to: "1.5"),
            "home.content": Sample(from: "\"text\"", to: "\"clock\"", beside: ["home.text": "\"hi\""]),
            "home.text": Sample(from: "\"hi\"", to: "\"ho\"", beside: ["home.content": "\"text\""]),
            "queue.capacity": Sample(from: "256", to: "100"),
            "queue.per_sender": Sample(from: "0", to: "32"),
            "queue.poll_interval_ms": Sample(from: "200", to: "100"),
            "queue.modules": Sample(from: "[\"default\"]", to: "[\"a\", \"b\"]"),
            "proximity.device": Sample(from: "\"iio:device0\"", to: "\"iio:device1\""),
            "proximity.name": Sample(from: "\"vcnl4000\"", to: "\"apds9960\""),
            "proximity.threshold": Sample(from: "100", to: "200", beside: proximity),
            "proximity.hysteresis": Sample(from: "5", to: "10", beside: proximity),
            "proximity.presence_threshold": Sample(from: "50", to: "60", beside: proximity.merging(["proximity.threshold": "100", "proximity.hysteresis": "5"]) { $1 }),
            "proximity.interval_ms": Sample(from: "100", to: "200", beside: proximity),
            "proximity.sysfs_root": Sample(from: "\"/sys\"", to: "\"/tmp/sys\"", beside: proximity),
            "led.device": Sample(from: "\"/dev/spidev0.0\"", to: "\"/dev/spidev0.1\""),
            "led.chip": Sample(from: "\"ws2812\"", to: "\"sk6812\""),
            "led.address": Sample(from: "116", to: "117", beside: i2cLEDs),
            "led.board": Sample(from: "\"scroll-phat-hd\"", to: "\"16x9\"", beside: i2cLEDs),
            "led.geometry": Sample(from: "\"32x8\"", to: "\"16x16\""),
            "led.tile": Sample(from: "\"8x8\"", to: "\"16x8\"", beside: ["led.geometry": "\"16x16\""]),
            "led.layout": Sample(from: "\"serpentine\"", to: "\"progressive\""),
            "led.origin": Sample(from: "\"top-left\"", to: "\"bottom-right\""),
            "led.lines": Sample(from: "\"rows\"", to: "\"columns\""),
            "led.order": Sample(from: "\"grb\"", to: "\"rgb\""),
            "led.brightness": Sample(from: "0.2", to: "0.3"),
            "led.gamma": Sample(from: "2.2", to: "2.8"),
            "led.milliamps_per_channel": Sample(from: "20", to: "15"),
            "led.idle_milliamps": Sample(from: "1", to: "0.5"),
            "led.supply_milliamps": Sample(from: "100000", to: "90000"),
            "led.spi_hz": Sample(from: "2400000", to: "3200000"),
            "led.scroll_speed": Sample(from: "20", to: "30"),
            "debug.press_inputs": Sample(from: "true", to: "false"),
            "debug.hang_display_file": Sample(from: "\"/tmp/hang\"", to: "\"/tmp/hang-too\""),
            "quiet.schedule": Sample(from: "[\"daily 22:00-07:00\"]", to: "[\"daily 23:00-07:00\"]"),
            "quiet.minimum_priority": Sample(from: "\"high\"", to: "\"normal\""),
            "quiet.suppress": Sample(from: "[\"low\"]", to: "[\"low\", \"normal\"]", beside: ["quiet.minimum_priority": "\"high\""]),
            "escalation.after_s": Sample(from: "60", to: "120"),
            "escalation.every_s": Sample(from: "60", to: "30"),
            "escalation.on_escalate": Sample(from: "[\"/bin/true\"]", to: "[\"/bin/false\"]"),
            "escalation.steps": Sample(from: "[\"brighter\"]", to: "[\"brighter\", \"pulse\"]"),
            "brightness.backlight": Sample(from: "\"rpi_backlight\"", to: "\"intel_backlight\""),
            "brightness.sysfs_root": Sample(from: "\"/sys/class/backlight\"", to: "\"/tmp/backlight\""),
            "brightness.fade_ms": Sample(from: "400", to: "800"),
            "brightness.ambient_sensor": Sample(from: "\"tsl2561\"", to: "\"bh1750\""),
            "brightness.ambient_device": Sample(from: "\"iio:device2\"", to: "\"iio:device3\""),
            "brightness.ambient_curve": Sample(from: "[\"0:20\", \"500:100\"]", to: "[\"0:30\", \"500:100\"]", beside: ambientSensor),
            "brightness.ambient_hysteresis_pct": Sample(from: "10", to: "20", beside: ambientSensor),
            "brightness.ambient_interval_ms": Sample(from: "1000", to: "2000", beside: ambientSensor),
            "brightness.ambient_sysfs_root": Sample(from: "\"/sys\"", to: "\"/tmp/sys\"", beside: ambientSensor),
            "presence.dim_after_s": Sample(from: "60", to: "120", beside: presenceInput),
            "presence.blank_after_s": Sample(from: "600", to: "900", beside: presenceInput),
            "presence.digest_dwell_s": Sample(from: "10", to: "20", beside: presenceInput),
            "sound.output": Sample(from: "\"none\"", to: "\"alsa\""),
            "sound.volume": Sample(from: "50", to: "60", beside: ["sound.output": "\"alsa\""]),
            "sound.low": Sample(from: "\"message\"", to: "\"bell\"", beside: ["sound.output": "\"alsa\""]),
            "sound.normal": Sample(from: "\"message\"", to: "\"x:d=4,o=5,b=100:c\"", beside: ["sound.output": "\"alsa\""]),
            "sound.high": Sample(from: "\"doorbell\"", to: "\"alarm\"", beside: ["sound.output": "\"alsa\""]),
            "sound.device": Sample(from: "\"nook_test_no_such_pcm\"", to: "\"nook_test_no_such_pcm_2\"", beside: ["sound.output": "\"alsa\""]),
            "sound.quiet_volume": Sample(from: "10", to: "20", beside: ["sound.output": "\"alsa\""]),
            "sound.quiet_through": Sample(from: "\"high\"", to: "\"normal\"", beside: ["sound.output": "\"alsa\""]),
            "sound.directory": Sample(from: "\"/srv/sounds\"", to: "\"/srv/other-sounds\""),
            "sound.away_volume": Sample(from: "10", to: "20", beside: presenceInput.merging(["sound.output": "\"alsa\""]) { $1 }),
            "history.path": Sample(from: "\"/var/lib/nook/history\"", to: "\"none\""),
            "history.max_entries": Sample(from: "100", to: "200"),
            "history.max_bytes": Sample(from: "1048576", to: "2097152"),
            "history.max_age": Sample(from: "\"7d\"", to: "\"1d\""),
            "history.recall_hold_ms": Sample(from: "1000", to: "1500"),
            "history.recall_entries": Sample(from: "5", to: "6"),
            "history.recall_dwell_ms": Sample(from: "3000", to: "4000"),
            "apps.duration_ms": Sample(from: "7000", to: "10000"),
            "apps.per_sender": Sample(from: "16", to: "4"),
            "apps.shares.*": Sample(from: "20", to: "30"),
            "gpio.*.role": Sample(from: "\"open\"", to: "\"dismiss\"", beside: ["gpio.*.line": "\"BTN\""]),
            "gpio.*.mode": Sample(from: "\"toggle\"", to: "\"level\"", beside: button),
            "gpio.*.line": Sample(from: "\"BTN\"", to: "\"KEY\"", beside: ["gpio.*.role": "\"open\""]),
            "gpio.*.chip": Sample(from: "\"gpiochip0\"", to: "\"gpiochip1\"", beside: ["gpio.*.role": "\"open\"", "gpio.*.offset": "17"]),
            "gpio.*.offset": Sample(from: "17", to: "18", beside: ["gpio.*.role": "\"open\"", "gpio.*.chip": "\"gpiochip0\""]),
            "gpio.*.active_low": Sample(from: "true", to: "false", beside: button),
            "gpio.*.bias": Sample(from: "\"pull-up\"", to: "\"pull-down\"", beside: button),
            "gpio.*.debounce_ms": Sample(from: "10", to: "20", beside: button),
            "touch.enabled": Sample(from: "true", to: "false"),
            "touch.device": Sample(from: "\"/dev/input/event2\"", to: "\"Goodix Capacitive TouchScreen\""),
            "touch.swipe_fraction": Sample(from: "0.1", to: "0.15"),
            "touch.long_press_ms": Sample(from: "600", to: "800"),
            "touch.calibration": Sample(from: "[1, 0, 0, 0, 1, 0]", to: "[-1, 0, 1, 0, 1, 0]"),
            "touch.swap_axes": Sample(from: "false", to: "true"),
            "touch.invert_x": Sample(from: "false", to: "true"),
            "touch.invert_y": Sample(from: "false", to: "true"),
            "touch.snooze": Sample(from: "\"10m\"", to: "\"1h\""),
        ]
        for key in ["accent", "background", "card", "text", "secondary_text"] + NookTint.Name.allCases.map({ "palette.\($0.rawValue)" }) {
            samples["theme." + key] = Sample(from: "\"#112233\"", to: "\"#445566\"")
        }
        for key in ["active", "night", "idle", "quiet", "dim"] { samples["brightness." + key] = Sample(from: "50", to: "60") }
        return samples
    }

    /// The config a file setting `values` gives (patterns' `*` as one `[gpio.button]` table).
    static func load(_ values: [String: String]) throws -> DaemonConfig {
        var tables: [String: [String]] = [:]
        for (key, value) in values {
            let parts = key.replacingOccurrences(of: "*", with: "button").split(separator: ".")
            tables[parts.dropLast().joined(separator: "."), default: []].append("\(parts.last!) = \(value)")
        }
        let text = tables.keys.sorted().map { "[\($0)]\n" + tables[$0]!.joined(separator: "\n") + "\n" }.joined()
        return try DaemonConfig(reading: ConfigReader(try ConfigDocument(parsing: text, source: "nook.toml")))
    }

    /// The keys whose change, key by key, the reload's log line (as `services` decide it)
    /// neither names as applied nor as needing a restart.
    static func unreported(by services: [any DaemonService.Type], scratch: Scratch) throws -> [String] {
        try outcomes(by: services, scratch: scratch).filter { !$0.applied && !$0.restart }.map(\.key)
    }

    /// Each key of the table, changed alone: whether the reload's log line names it as applied,
    /// as waiting for a restart, or neither.
    static func outcomes(by services: [any DaemonService.Type], scratch: Scratch) throws -> [(key: String, applied: Bool, restart: Bool)] {
        let samples = samples(themeFiles: (scratch.file("a.toml", "[theme]\naccent = \"#112233\"\n"),
                                           scratch.file("b.toml", "[theme]\naccent = \"#445566\"\n")))
        var outcomes: [(key: String, applied: Bool, restart: Bool)] = []
        for key in DaemonConfig.keys.keys {
            let sample = try #require(samples[key], "no sample values for \(key)")
            var values = sample.beside
            values[key] = sample.from
            let old = try load(values)
            values[key] = sample.to
            let new = try load(values)
            let changed = old.changedKeys(to: new)
            let name = key.replacingOccurrences(of: "*", with: "button")
            #expect(changed == [name], "\(key): \(changed)")
            let decision = Daemon.reloadDecision(services, from: old, to: new, context: ReloadContext(displaySize: PixelSize(width: 1280, height: 400)))
            // The log line nookd writes for this reload names the key in one of its two lists.
            let note = decision.note(reloading: "nook.toml")
            let (appliedKeys, restartKeys) = named(in: note)
            let applied = appliedKeys.contains(name)
            let restart = restartKeys.contains(name)
            #expect(!(applied && restart), "\(key) is both applied and waiting for a restart: \(note)")
            outcomes.append((key, applied, restart))
        }
        return outcomes
    }

    /// nook.toml(5) says of each key what a reload does with it ("Reload: applied" or "Reload:
    /// restart", on the key or once for its whole table): what the services decide.
    @Test func n1_whatNookToml5SaysAReloadDoesWithEachKeyIsWhatNookdDoes() throws {
        let file = #filePath
        let page = try String(contentsOfFile: String(file[..<file.range(of: "/Tests/")!.lowerBound]) + "/docs/man/nook.toml.5", encoding: .utf8)
        var said: [String: Bool] = [:]  // key as the page writes it -> applied
        var tableNote: Bool?, current: String?
        func settle(_ note: Bool?) { if let key = current { said[key] = note ?? tableNote }; current = nil }
        for line in page.split(separator: "\n").map(String.init) {
            if line.hasPrefix(".Ss ") { settle(nil); tableNote = nil }
            if line.hasPrefix(".It ") || line == ".El" { if current != nil, said[current!] == nil { settle(nil) } else { current = nil } }
            if line.hasPrefix(".It Cm ") { current = line.dropFirst(7).split(separator: " ").first.map(String.init) }
            guard line.hasPrefix("Reload: ") else { continue }
            let applied = line.hasPrefix("Reload: applied")
            if line.contains("for every key of the table") && current == nil { tableNote = applied } else { settle(applied) }
        }
        let outcomes = try Self.outcomes(by: DaemonParts.startOrder, scratch: Scratch())
        for outcome in outcomes {
            let written = outcome.key.replacingOccurrences(of: "*", with: "NAME")
            let pageSays = said[written] ?? (written.hasPrefix("theme.palette.") ? said["theme.palette.NAME"] : nil)
            guard let pageSays else { Issue.record("nook.toml(5) does not say what a reload does with \(written)"); continue }
            #expect(pageSays == outcome.applied, "\(written): nook.toml(5) says \(pageSays ? "applied" : "restart"), nookd \(outcome.applied ? "applies it" : "needs a restart")")
        }
    }

    /// The keys a reload's log line names as applied, and as waiting for a restart.
    static func named(in note: String) -> (applied: [String], restart: [String]) {
        var applied: [String] = []
        if let start = note.range(of: " (applied "), let end = note[start.upperBound...].firstIndex(of: ")") {
            applied = note[start.upperBound..<end].components(separatedBy: ", ")
        }
        var restart: [String] = []
        if let start = note.range(of: "; restart nookd to apply ") {
            restart = note[start.upperBound...].components(separatedBy: ", ").map { String($0.prefix { $0 != " " }) }
        }
        return (applied, restart)
    }

    @Test func n1_aReloadsLogLineNamesTheAppliedKeysAndThoseThatNeedARestart() {
        let note = ReloadDecision(applied: ["theme.accent", "home.text"], needsRestart: ["queue.capacity", "history.recall_hold_ms (for the GPIO buttons)"])
            .note(reloading: "/etc/nook.toml")
        #expect(note == "SIGHUP: reloaded /etc/nook.toml (applied theme.accent, home.text); restart nookd to apply queue.capacity, history.recall_hold_ms (for the GPIO buttons)")
        #expect(Self.named(in: note).applied == ["theme.accent", "home.text"])
        #expect(Self.named(in: note).restart == ["queue.capacity", "history.recall_hold_ms"])
        #expect(ReloadDecision().note(reloading: "/etc/nook.toml") == "SIGHUP: reloaded /etc/nook.toml")
    }

    @Test func n1_everyKeyTheConfigReaderAcceptsHasValuesToWalk() {
        let samples = Self.samples(themeFiles: ("a", "b"))
        #expect(Set(samples.keys) == Set(DaemonConfig.keys.keys), "walked: \(Set(samples.keys).symmetricDifference(DaemonConfig.keys.keys).sorted())")
        #expect(DaemonConfig.keys.keys.count > 100)
    }

    @Test func n1_aReloadThatChangesAnyKeyAppliesItOrNamesItAsNeedingARestart() throws {
        let unreported = try Self.unreported(by: DaemonParts.startOrder, scratch: Scratch())
        #expect(unreported == [], "silently kept at a reload: \(unreported)")
    }

    @Test func n1_everyKeyBelongsToExactlyOneService() {
        for key in DaemonConfig.keys.keys {
            let owners = DaemonParts.startOrder.filter { ConfigKeyTable($0.keys).contains(key) }.map { $0.name }
            #expect(owners.count == 1, "\(key): \(owners)")
        }
        for service in DaemonParts.startOrder {
            for pattern in service.keys {
                #expect(DaemonConfig.keys.keys.contains { ConfigKeyTable([pattern]).contains($0) }, "\(service.name) owns \(pattern), which the reader never reads")
            }
        }
    }

    @Test func n1_theWalkFindsTheKeysOfAServiceLeftOutOfTheList() throws {
        let withoutQuiet = DaemonParts.startOrder.filter { $0.name != "quiet hours" }
        let unreported = try Self.unreported(by: withoutQuiet, scratch: Scratch())
        #expect(unreported == ["quiet.schedule", "quiet.minimum_priority", "quiet.suppress"])
    }

    /// A screen service whose section forgot `display.blank_after_s`: the key changes, the
    /// section does not, and the reload would say nothing of it.
    final class ForgetfulScreen: DaemonService {
        struct Section: Equatable, Sendable {
            var theme: Theme
            var rotation: Rotation
            var home: HomeContent
        }

        static let name = "screen"
        static var needs: [any DaemonService.Type] { [] }
        static let keys = Service.Screen.keys
        static let appliesAtReload = true

        static func section(of config: DaemonConfig) -> Section { Section(theme: config.screen.theme, rotation: config.screen.rotation, home: config.screen.home) }

        func start(_ section: Section) async throws(DaemonError) {}
    }

    @Test func n1_theWalkFindsAKeyAServiceOwnsButLeavesOutOfItsSection() throws {
        let forgetful = DaemonParts.startOrder.map { $0.name == "screen" ? ForgetfulScreen.self : $0 }
        let unreported = try Self.unreported(by: forgetful, scratch: Scratch())
        #expect(unreported == ["display.blank_after_s"])
    }

    @Test func n1_theReaderRefusesToReadAKeyMissingFromItsTable() throws {
        let reader = ConfigReader(try ConfigDocument(parsing: "[display]\nsparkle = true\n", source: "nook.toml"))
        reader.restrict(to: DaemonConfig.keys)
        #expect(throws: ConfigError.self) { try reader.bool("display.sparkle") }
        #expect(try reader.bool("display.page_flip") == nil)
        #expect(try reader.integer("gpio.button.offset", in: 0...10) == nil, "a [gpio.NAME] key matches its pattern")
    }

    @Test func n1_aReloadLogsEachChangedKeyAsAppliedOrNeedingARestart() throws {
        let scratch = Scratch()
        let path = scratch.file("nook.toml", "[theme]\nappearance = \"dark\"\n[queue]\ncapacity = 256\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", path])
        _ = scratch.file("nook.toml", "[theme]\nappearance = \"light\"\n[queue]\ncapacity = 100\n")
        kill(daemon.process.processIdentifier, SIGHUP)
        try eventually("the reload's note") { daemon.log.contains("SIGHUP: reloaded") }
        #expect(daemon.log.contains("(applied theme.appearance)"), "\(daemon.log.suffix(1000))")
        #expect(daemon.log.contains("restart nookd to apply queue.capacity"), "\(daemon.log.suffix(1000))")
        #expect((try daemon.request(.status))["display"]?["theme"] == .string("light"))
        #expect(daemon.stop().status == 0)
    }
}
