import NookConfig
@testable import NookDaemon
import NookDisplay
import NookSystem
import Testing

/// nookd's flags and the config file's keys are checked by the same rules and say so alike.
@Suite("N1 flags override the file by the file's rules")
struct FlagOverridesTests {
    @Test func n1_aBadFlagNamesTheFlagWithTheFilesWording() throws {
        var flags = FlagOverrides()
        flags.rotation = 45
        #expect(throws: SettingProblem("--rotation must be 0, 90, 180 or 270, got 45")) { try flags.validate() }
        let file = try ConfigDocument(parsing: "[display]\nrotation = 45\n", source: "nook.toml")
        #expect(throws: ConfigError.self) { _ = try DaemonConfig(reading: ConfigReader(file)) }
        do {
            _ = try DaemonConfig(reading: ConfigReader(file))
        } catch {
            #expect(error.description == "nook.toml:2: display.rotation: must be 0, 90, 180 or 270, got 45")
        }
        for (flag, set) in [("--display must be one of auto, drm, fbdev, mock, led-spi, led-i2c, led-mock, got \"hdmi\"", { (f: inout FlagOverrides) in f.display = "hdmi" }),
                            ("--socket must be an absolute path, got \"nook.sock\"", { $0.socket = "nook.sock" }),
                            ("--journal must be an absolute path or \"none\", got \"j\"", { $0.journal = "j" }),
                            ("--size must be WIDTHxHEIGHT such as \"1280x400\", got \"big\"", { $0.size = "big" }),
                            ("--log-level must be one of trace, debug, info, notice, warning, error, got \"loud\"", { $0.logLevel = "loud" }),
                            ("--theme must be one of dark, light, got \"blue\"", { $0.theme = "blue" }),
                            ("--journal-sync must be one of ack, interval, got \"always\"", { $0.journalSync = "always" })] {
            var flags = FlagOverrides()
            set(&flags)
            #expect(throws: SettingProblem(flag)) { try flags.validate() }
        }
    }

    @Test func n1_goodFlagsOverrideTheFile() throws {
        var flags = FlagOverrides()
        (flags.rotation, flags.size, flags.journal, flags.display) = (90, "1920x480", "none", "mock")
        flags.journalSync = "interval"
        try flags.validate()
        var config = DaemonConfig()
        #expect(config.journal.sync == .ack)
        flags.apply(to: &config)
        #expect(config.journal.sync == .interval)
        #expect(config.screen.rotation == .quarter && config.display.mockSize == PixelSize(width: 1920, height: 480))
        #expect(config.journal.path == nil && config.display.backend == .mock)
    }

    @Test func n1_nookdReadsItsCommandLineWithoutArgumentParser() throws {
        // nookd reads its flags by hand (no FoundationEssentials in the daemon); every
        // spelling it accepted through ArgumentParser still works, and mistakes name the flag.
        let line = try NookdCommandLine.parse(["--config", "/etc/nook/nook.toml", "--socket=/run/n.sock", "--display", "mock",
                                               "--frames", "/tmp/f", "--size", "1920x480", "--rotation", "270", "--theme", "light",
                                               "--socket-group", "nook", "--log-level", "debug", "--journal", "none",
                                               "--journal-sync", "interval", "--check"])
        #expect(line.config == "/etc/nook/nook.toml" && line.check && !line.testDisplay && !line.help)
        let flags = line.flags
        #expect(flags.socket == "/run/n.sock" && flags.display == "mock" && flags.frames == "/tmp/f" && flags.size == "1920x480")
        #expect(flags.rotation == 270 && flags.theme == "light" && flags.socketGroup == "nook" && flags.logLevel == "debug")
        #expect(flags.journal == "none" && flags.journalSync == "interval")
        #expect(try NookdCommandLine.parse(["--test-display"]).testDisplay)
        #expect(try NookdCommandLine.parse(["-h"]).help && NookdCommandLine.parse(["--rotation", "45", "--help"]).help)
        #expect(NookdCommandLine.usage.contains("--journal-sync VALUE") && NookdCommandLine.usage.contains("--check"))
        for (arguments, problem) in [(["--rotation", "45"], "--rotation must be 0, 90, 180 or 270, got 45"),
                                     (["--rotation", "ninety"], "--rotation must be 0, 90, 180 or 270, got ninety"),
                                     (["--display=hdmi"], "--display must be one of auto, drm, fbdev, mock, led-spi, led-i2c, led-mock, got \"hdmi\""),
                                     (["--socket"], "missing value for '--socket'"),
                                     (["--socket", "--check"], "missing value for '--socket'"),
                                     (["--sockets", "/s"], "unknown option '--sockets'"),
                                     (["serve"], "unexpected argument 'serve'"),
                                     (["--check=yes"], "--check takes no value")] {
            #expect(throws: NookdCommandLine.Problem(problem), "\(arguments)") { try NookdCommandLine.parse(arguments) }
        }
    }

    /// A value for every flag in nookd's table: a flag added without one fails here.
    static let sampleValues = ["--config": "/etc/nook/nook.toml", "--socket": "/run/n.sock", "--display": "mock", "--frames": "/tmp/f",
                               "--size": "1920x480", "--rotation": "90", "--theme": "light", "--socket-group": "nook", "--log-level": "debug",
                               "--journal": "none", "--journal-sync": "interval"]

    @Test func n1_everyFlagInNookdsTableIsReadRefusedWithoutItsValueAndInTheHelp() throws {
        let plain = "\(try NookdCommandLine.parse([]))"
        for option in NookdCommandLine.options {
            let spelled = "\n  " + option.names.joined(separator: ", ") + (option.value.map { " " + $0 } ?? "") + "\n"
            #expect(NookdCommandLine.usage.contains(spelled), "\(option.name) is not in --help as \(spelled)")
            guard option.takesValue else {
                #expect("\(try NookdCommandLine.parse([option.name]))" != plain, "\(option.name) changes nothing")
                if option.name != "--help" {
                    #expect(throws: NookdCommandLine.Problem("\(option.name) takes no value")) { try NookdCommandLine.parse(["\(option.name)=1"]) }
                }
                continue
            }
            let value = try #require(Self.sampleValues[option.name], "no sample value for \(option.name)")
            #expect("\(try NookdCommandLine.parse([option.name, value]))" != plain, "\(option.name) changes nothing")
            #expect(throws: NookdCommandLine.Problem("missing value for '\(option.name)'")) { try NookdCommandLine.parse([option.name]) }
        }
        #expect(Set(Self.sampleValues.keys) == Set(NookdCommandLine.options.filter(\.takesValue).map(\.name)))
    }
}
