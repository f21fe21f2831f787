import Foundation
import NookConfig
@testable import NookDaemon
import NookProtocol
import NookTestTraits
import Testing

/// N1: a bad value of any key is refused naming the file, the line and the key, whichever
/// service declares it; the first bad key in reading order is the one named; and a reload of a
/// broken file keeps the running config and says what was wrong.
@Suite("N1 bad values of every key are refused by name, at start and at a reload", .serialized, .ownThreads)
struct ConfigRefusalTests {
    /// A value of another type than `kind` reads, and the start of the reader's message for it.
    static func wrongType(for kind: SettingKind) -> (value: String, message: String) {
        switch kind {
        case .integer: ("\"1\"", "must be a whole number, got a string")
        case .number: ("\"1\"", "must be a number, got a string")
        case .integers: ("\"1\"", "must be an array of whole numbers, got a string")
        case .numbers: ("\"1\"", "must be an array of numbers, got a string")
        case .bool: ("\"yes\"", "must be true or false, got a string")
        case .text, .choice: ("true", "must be a string in quotes, got true or false")
        case .texts: ("\"a\"", "must be an array of strings, got a string")
        }
    }

    /// What reading `text` as nook.toml is refused with; nil if it reads.
    static func error(_ text: String) -> String? {
        do {
            _ = try DaemonConfig(reading: ConfigReader(try ConfigDocument(parsing: text, source: "nook.toml")))
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// The error loading `values` (with what the key needs beside it) gives.
    static func refusal(_ key: String, _ value: String) throws -> ConfigError? {
        let samples = ReloadKeyTests.samples(themeFiles: ("a.toml", "b.toml"))
        var values = samples[key]?.beside ?? [:]
        values[key] = value
        do {
            _ = try ReloadKeyTests.load(values)
            return nil
        } catch let error as ConfigError {
            return error
        }
    }

    @Test func n1_aValueOfTheWrongTypeForAnyDeclaredKeyIsRefusedNamingThatKeyAndItsLine() throws {
        #expect(SettingDeclarationTests.declared.count == DaemonConfig.keys.keys.count)
        for (_, setting) in SettingDeclarationTests.declared {
            let (value, message) = Self.wrongType(for: setting.kind)
            let error = try Self.refusal(setting.key, value)
            let name = setting.key.replacingOccurrences(of: "*", with: "button")
            #expect(error?.key == name && error?.line != nil, "\(setting.key) = \(value): \(String(describing: error))")
            #expect(error?.message == message, "\(setting.key) = \(value): \(String(describing: error))")
        }
    }

    @Test func n1_aValueJustOutsideAnyDeclaredRangeIsRefusedWithTheRange() throws {
        var checked = 0
        for (_, setting) in SettingDeclarationTests.declared {
            let name = setting.key.replacingOccurrences(of: "*", with: "button")
            switch setting.kind {
            case .integer(let range):
                let error = try Self.refusal(setting.key, String(range.upperBound + 1))
                #expect(error?.key == name && error?.message == "must be from \(range.lowerBound) to \(range.upperBound), got \(range.upperBound + 1)",
                        "\(setting.key): \(String(describing: error))")
                checked += 1
            case .number(let range):
                let error = try Self.refusal(setting.key, String(range.upperBound + 1))
                #expect(error?.key == name && error?.message == "must be from \(range.lowerBound) to \(range.upperBound), got \(range.upperBound + 1)",
                        "\(setting.key): \(String(describing: error))")
                checked += 1
            case .integers(let range):
                let error = try Self.refusal(setting.key, "[\(range.upperBound + 1)]")
                #expect(error?.key == name && error?.message.hasPrefix("must be an array of whole numbers from \(range.lowerBound) to \(range.upperBound)") == true,
                        "\(setting.key): \(String(describing: error))")
                checked += 1
            case .choice(let choices):
                let error = try Self.refusal(setting.key, "\"no-such-choice\"")
                #expect(error?.key == name && error?.message == "must be one of \(choices.joined(separator: ", ")), got \"no-such-choice\"",
                        "\(setting.key): \(String(describing: error))")
                checked += 1
            default:
                break
            }
        }
        #expect(checked > 60, "the ranged and chosen keys were reached: \(checked)")
    }

    /// Keys in no table nookd knows, or in the wrong one: named with their line, as before the
    /// services declared their keys (the known tables listed in the same order).
    @Test func n1_anUnknownKeyOrAKeyInTheWrongTableIsRefusedByName() throws {
        #expect(Self.error("[daemon]\ncapacity = 5\n") == "nook.toml:2: daemon.capacity: is not a known setting")
        #expect(Self.error("[display]\nsparkle = true\n") == "nook.toml:2: display.sparkle: is not a known setting")
        #expect(Self.error("[queues]\ncapacity = 5\n") == "nook.toml:2: queues.capacity: is in an unknown table [queues] (known: [daemon], [journal], [display], "
            + "[theme], [theme.palette], [home], [queue], [proximity], [led], [debug], [quiet], [brightness], [escalation], [presence], [history], [apps], [apps.shares], [touch], [sound])")
        #expect(Self.error("[gpio]\nrole = \"open\"\n") == "nook.toml:2: gpio.role: GPIO inputs go in tables of their own, such as [gpio.button] with role = \"open\"")
    }

    /// An unknown table is refused by name even with nothing under it, as a key in it is;
    /// nook-lcdproc's tables of the shared file are its own business, and an empty
    /// `[gpio.NAME]` is an input without its role.
    @Test func n1_anUnknownTableIsRefusedByNameEvenWhenEmpty() throws {
        #expect(Self.error("[display]\nrotation = 90\n[bogus]\n") == "nook.toml:3: bogus: is not a known table (known: [daemon], [journal], [display], "
            + "[theme], [theme.palette], [home], [queue], [proximity], [led], [debug], [quiet], [brightness], [escalation], [presence], [history], [apps], [apps.shares], [touch], [sound])")
        #expect(Self.error("[queue]\n[display.sparkle]\n")?.hasPrefix("nook.toml:2: display.sparkle: is not a known table (known: [daemon],") == true)
        #expect(Self.error("[gpio.button]\n") == "nook.toml: gpio.button.role: is required: hover, open, dismiss or presence")
        #expect(Self.error("[daemon]\n[theme.palette]\n[touch]\n[lcdproc]\n[lcdproc.keys]\n") == nil)
    }

    /// Two bad keys: the one read first is named, in the reader's order (the daemon's keys
    /// before the display's, the queue's before the history's), whatever the file's order.
    @Test func n1_ofTwoBadKeysTheOneReadFirstIsNamed() throws {
        #expect(Self.error("[queue]\ncapacity = 0\n[daemon]\nmax_connections = 0\n")
            == "nook.toml:4: daemon.max_connections: must be from 1 to 65536, got 0")
        #expect(Self.error("[history]\nmax_entries = 0\n[queue]\ncapacity = 0\n") == "nook.toml:4: queue.capacity: must be from 1 to 100000, got 0")
        #expect(Self.error("[touch]\nlong_press_ms = 1\n[brightness]\nactive = 101\n") == "nook.toml:4: brightness.active: must be from 0 to 100, got 101")
    }

    /// A reload of a file with a bad value of each kind, an unknown key, or broken TOML keeps
    /// what runs (status unchanged) and names the problem; the next good file applies.
    @Test func n1_aReloadOfABrokenFileKeepsTheRunningConfigAndSaysWhatWasWrong() throws {
        let scratch = Scratch()
        let good = "[display]\nrotation = 0\n[queue]\ncapacity = 256\n"
        let path = scratch.file("nook.toml", good)
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", path])
        let broken: [(text: String, error: String)] = [
            ("[display]\nrotation = 90\n[queue]\ncapacity = \"many\"\n", "nook.toml:4: queue.capacity: must be a whole number, got a string"),
            ("[display]\nrotation = 90\n[queue]\ncapacity = 0\n", "nook.toml:4: queue.capacity: must be from 1 to 100000, got 0"),
            ("[display]\nrotation = 90\nsparkle = true\n", "nook.toml:3: display.sparkle: is not a known setting"),
            ("[display]\nrotation = 45\n", "nook.toml:2: display.rotation: must be 0, 90, 180 or 270, got 45"),
            ("[display]\nrotation = 90\n[home]\ncontent = \"text\"\n", "home.text: is required when home.content is \"text\""),
            ("[display\nrotation = 90\n", "nook.toml:1"),
        ]
        for (number, (text, error)) in broken.enumerated() {
            _ = scratch.file("nook.toml", text)
            kill(daemon.process.processIdentifier, SIGHUP)
            try eventually("refusal \(number + 1)") {
                daemon.log.components(separatedBy: "SIGHUP: keeping the running config, the file has an error: ").count == number + 2
            }
            let said = daemon.log.components(separatedBy: "SIGHUP: keeping the running config, the file has an error: ")[number + 1]
            #expect(said.contains(error), "\(text): \(said.prefix(300))")
            let status = try daemon.request(.status)
            #expect(status["display"]?["rotation"] == .number(0), "the running rotation stays: \(text)")
        }
        #expect(!daemon.log.contains("SIGHUP: reloaded"), "no broken file was applied in part")
        // A good file applies what applies at once and names what waits for a restart.
        _ = scratch.file("nook.toml", "[display]\nrotation = 90\n[queue]\ncapacity = 100\n")
        kill(daemon.process.processIdentifier, SIGHUP)
        try eventually("the good file's reload") { daemon.log.contains("SIGHUP: reloaded") }
        #expect(daemon.log.contains("(applied display.rotation); restart nookd to apply queue.capacity"), "\(daemon.log.suffix(800))")
        let status = try daemon.request(.status)
        #expect(status["display"]?["rotation"] == .number(90))
        #expect(status["modules"]?.items.first?["capacity"] == .number(256), "the capacity waits for a restart")
        #expect(daemon.process.isRunning)
        #expect(daemon.stop().status == 0)
    }
}
