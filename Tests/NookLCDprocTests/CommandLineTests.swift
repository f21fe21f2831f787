import NookLCDproc
import NookSystem
import Testing

/// nook-lcdproc's flags, read without ArgumentParser (FoundationEssentials out of the bridge's
/// resident set). Every expected message below is what ArgumentParser 1.x printed for the same
/// words before the change (recorded from the old binary), including which of several problems
/// it named first.
@Suite("E8 nook-lcdproc's command line")
struct LCDCommandLineTests {
    /// No config file is read unless a test names one.
    static let noConfig = "/nonexistent/nook.toml"

    static func parse(_ arguments: [String]) throws(LCDCommandLine.Problem) -> (line: LCDCommandLine, settings: LCDCommandLine.Settings?) {
        try LCDCommandLine.parse(arguments, defaultConfig: noConfig)
    }

    @Test func e8_flagsInBothSpellingsOverTheDefaults() throws {
        let plain = try Self.parse([])
        #expect(plain.line == LCDCommandLine())
        #expect(plain.settings?.options.bind == LCDBindAddress(host: "127.0.0.1", port: 13666))
        #expect(plain.settings?.options.grid.width == 40 && plain.settings?.options.grid.height == 4)
        let read = try Self.parse(["--port=0", "--size", "20x2", "--cell=6x9", "--max-clients", "3", "--module", "lcd",
                                   "--key", "open=Enter", "--key=dismiss=", "--menu-timeout", "0", "--log-level", "debug", "--allow-network=",
                                   "--bind", "0.0.0.0"])
        let settings = try #require(read.settings)
        #expect(settings.options.bind == LCDBindAddress(host: "0.0.0.0", port: 0))
        #expect(settings.options.grid.width == 20 && settings.options.grid.height == 2)
        #expect(settings.options.grid.cellWidth == 6 && settings.options.grid.cellHeight == 9)
        #expect(settings.options.maximumClients == 3 && settings.module == "lcd" && settings.options.menu.timeoutFrames == 0)
        #expect(settings.keyMap.keys["open"] == "Enter" && settings.keyMap.keys["dismiss"] == "")
        #expect(read.line.keys == ["open=Enter", "dismiss="] && read.line.logLevel == "debug" && read.line.allowNetwork)
        // The last of a repeated flag wins; Swift's whole numbers take a sign.
        #expect(try Self.parse(["--port", "1", "--port=+5"]).settings?.options.bind.port == 5)
    }

    @Test func e8_helpAnywhereWinsOverStraysUnknownFlagsAndSettings() throws {
        for arguments in [["--help"], ["-h"], ["--bogus", "--help"], ["-h", "--bogus"], ["--help=1"], ["-h=3"], ["--size", "3", "--help"],
                          ["a", "b", "--help"], ["--log-level", "nope", "--help"], ["--bind", "nope", "-h"]] {
            #expect(try Self.parse(arguments).line.help, "\(arguments)")
        }
        #expect(LCDCommandLine.usage.hasPrefix("OVERVIEW: An LCDproc server (protocol 0.3, as LCDd 0.5.9) whose screens are the\nNook home glance.\n\n"))
        #expect(LCDCommandLine.usage.contains("\nUSAGE: nook-lcdproc <options>\n"))
        #expect(LCDCommandLine.usage.hasSuffix("  -h, --help              Show help information.\n\n"))
        for option in LCDCommandLine.options {
            let spelled = option.names.joined(separator: ", ") + (option.value.map { " " + $0 } ?? "")
            #expect(LCDCommandLine.usage.contains("\n  \(spelled)"), "\(spelled)")
        }
    }

    /// ArgumentParser judged a missing value, a switch given one and a whole number that is
    /// not one before it looked for help: `--port abc --help` was exit 64, not the help.
    @Test func e8_helpLosesToAMissingOrBadValueAsArgumentParsersDid() {
        let portHelp = "--port <port>  TCP port (lcdproc.port; LCDd's is 13666; 0 lets the kernel choose and prints it)."
        let clientsHelp = "--max-clients <max-clients>  Most clients at once (lcdproc.max_clients; default 64)."
        let cases: [([String], String, String?)] = [
            (["--port", "abc", "-h"], "The value 'abc' is invalid for '--port <port>'", portHelp),
            (["--help", "--port", "abc"], "The value 'abc' is invalid for '--port <port>'", portHelp),
            (["--port=abc", "--help"], "The value 'abc' is invalid for '--port <port>'", portHelp),
            (["-h", "--max-clients", "x"], "The value 'x' is invalid for '--max-clients <max-clients>'", clientsHelp),
            (["--port", "--help"], "Missing value for '--port <port>'", portHelp),
            (["--port", "-1", "-h"], "Missing value for '--port <port>'", portHelp),
            (["--allow-network=1", "--help"], "The option '--allow-network' does not take any value, but '1' was specified.", nil),
        ]
        for (arguments, message, help) in cases {
            #expect(throws: LCDCommandLine.Problem(message, help: help), "\(arguments)") { try Self.parse(arguments) }
        }
    }

    /// ArgumentParser read `--port=` as `--port` (the value is the next word) and converted each
    /// whole number where it met it, before a later flag's missing value.
    @Test func e8_anEmptyInlineValueTakesTheNextWordAndNumbersAreJudgedInTurn() throws {
        let portHelp = "--port <port>  TCP port (lcdproc.port; LCDd's is 13666; 0 lets the kernel choose and prints it)."
        let configHelp = "--config <config>  Config file whose [lcdproc] tables are read (default /etc/nook/nook.toml if it exists)."
        let cases: [([String], String, String?)] = [
            (["--port=x", "--config"], "The value 'x' is invalid for '--port <port>'", portHelp),
            (["--port", "x", "--config"], "The value 'x' is invalid for '--port <port>'", portHelp),
            (["--config", "--port=x"], "Missing value for '--config <config>'", configHelp),
            (["5", "=", "--port=", "debug"], "The value 'debug' is invalid for '--port <port>'", portHelp),
            (["--bogus", "--key=", "nope"], "--key must be INPUT=KEY (such as open=Enter), got 'nope'", nil),
            (["debug", "abc", "--port=", "0"], "2 unexpected arguments: 'debug', 'abc'", nil),
            (["--port=", "-h"], "Missing value for '--port <port>'", portHelp),
            (["abc", "--", "--port=", "--help="], "3 unexpected arguments: 'abc', '--port=', '--help='", nil),
        ]
        for (arguments, message, help) in cases {
            #expect(throws: LCDCommandLine.Problem(message, help: help), "\(arguments)") { try Self.parse(arguments) }
        }
        #expect(try Self.parse(["--help=1", "--key=", "4000"]).line.help)
        #expect(try Self.parse(["--module=", "lcd"]).settings?.module == "lcd")
    }

    /// A mistyped flag is answered with the nearest one, and every stray word is named, as
    /// ArgumentParser did (recorded from the old binary).
    @Test func e8_unknownFlagsGetArgumentParsersSuggestionAndStraysAreAllNamed() {
        let cases: [([String], String)] = [
            (["--prot", "5"], "Unknown option '--prot'. Did you mean '--port'?"),
            (["--Port=5"], "Unknown option '--Port'. Did you mean '--port'?"),
            (["--max-screen", "4"], "Unknown option '--max-screen'. Did you mean '--max-screens'?"),
            (["--hel"], "Unknown option '--hel'. Did you mean '--cell'?"),
            (["--x"], "Unknown option '--x'. Did you mean '--key'?"),
            (["--abcd"], "Unknown option '--abcd'. Did you mean '--bind'?"),
            (["-port"], "Unknown option '-port'. Did you mean '--port'?"),
            (["-cel"], "Unknown option '-cel'. Did you mean '--cell'?"),
            (["--allow"], "Unknown option '--allow'"),
            (["--max-x"], "Unknown option '--max-x'"),
            (["-p"], "Unknown option '-p'"),
            (["-xyz"], "Unknown option '-xyz'"),
            (["--bogus", "--prot"], "Unknown option '--bogus'"),
            (["a", "b"], "2 unexpected arguments: 'a', 'b'"),
            (["--port", "5", "a", "b", "c"], "3 unexpected arguments: 'a', 'b', 'c'"),
            (["--", "--port", "x"], "2 unexpected arguments: '--port', 'x'"),
        ]
        for (arguments, message) in cases {
            #expect(throws: LCDCommandLine.Problem(message), "\(arguments)") { try Self.parse(arguments) }
        }
    }

    @Test func e8_badCommandLinesGetArgumentParsersMessagesInItsOrder() {
        let portHelp = "--port <port>  TCP port (lcdproc.port; LCDd's is 13666; 0 lets the kernel choose and prints it)."
        let levelMust = "--log-level must be trace, debug, info, notice, warning, error or critical; got"
        let sizeMust = "--size must be COLUMNSxROWS with 1 to 80 columns and 1 to 24 rows, got '3'"
        let cases: [([String], String, String?)] = [
            (["--bogus"], "Unknown option '--bogus'", nil),
            (["-x"], "Unknown option '-x'", nil),
            (["extra"], "Unexpected argument 'extra'", nil),
            (["--", "foo"], "Unexpected argument 'foo'", nil),
            (["extra", "--bogus"], "Unknown option '--bogus'", nil),
            (["--port"], "Missing value for '--port <port>'", portHelp),
            (["--port="], "Missing value for '--port <port>'", portHelp),
            (["--port", "-1"], "Missing value for '--port <port>'", portHelp),
            (["--bogus", "--port"], "Missing value for '--port <port>'", portHelp),
            (["--port", "abc"], "The value 'abc' is invalid for '--port <port>'", portHelp),
            (["--port", " 5"], "The value ' 5' is invalid for '--port <port>'", portHelp),
            (["--port", "0x10"], "The value '0x10' is invalid for '--port <port>'", portHelp),
            (["--bogus", "--port", "abc"], "The value 'abc' is invalid for '--port <port>'", portHelp),
            (["--port", "abc", "--size", "3"], "The value 'abc' is invalid for '--port <port>'", portHelp),
            (["--config", Self.noConfig, "--port", "abc"], "The value 'abc' is invalid for '--port <port>'", portHelp),
            (["--port=70000"], "--port must be 0 to 65535, got 70000", nil),
            (["--allow-network=1"], "The option '--allow-network' does not take any value, but '1' was specified.", nil),
            (["--bogus", "--allow-network=x"], "The option '--allow-network' does not take any value, but 'x' was specified.", nil),
            (["--bind", "10.0.0.1"], "--bind 10.0.0.1 is not a loopback address; LCDproc has no authentication, so listening there needs --allow-network (or lcdproc.allow_network = true) as well", nil),
            (["--bind", "nope"], "--bind must be an IPv4 address such as 127.0.0.1, got 'nope'", nil),
            (["--size", "3"], sizeMust, nil),
            (["--size", "3", "--bogus"], sizeMust, nil),
            (["--cell", "1x100"], "--cell must be WIDTHxHEIGHT with each from 1 to 64, got '1x100'", nil),
            (["--key", "foo"], "--key must be INPUT=KEY (such as open=Enter), got 'foo'", nil),
            (["--max-screens", "0"], "--max-screens must be at least 1, got 0", nil),
            (["--module", ""], "--module must not be empty", nil),
            (["--menu-timeout", "4000"], "--menu-timeout must be 0 to 3600 seconds, got 4000", nil),
            (["--log-level", "nope"], "\(levelMust) 'nope'", nil),
            (["--bogus", "--log-level", "nope"], "\(levelMust) 'nope'", nil),
            (["--size", "3", "--log-level", "nope"], "\(levelMust) 'nope'", nil),
            (["--config", Self.noConfig], "\(Self.noConfig): 'open' failed: (2) No such file or directory", nil),
        ]
        for (arguments, message, help) in cases {
            #expect(throws: LCDCommandLine.Problem(message, help: help), "\(arguments)") { try Self.parse(arguments) }
        }
        #expect(LCDCommandLine.errorText(LCDCommandLine.Problem("Missing value for '--port <port>'", help: portHelp))
            == "Error: Missing value for '--port <port>'\nHelp:  \(portHelp)\nUsage: nook-lcdproc <options>\n  See 'nook-lcdproc --help' for more information.\n")
    }
}
