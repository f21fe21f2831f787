import Foundation
import NookNotify
import NookSystem
import Testing

/// nook-notify's flags, read without ArgumentParser (FoundationEssentials out of the
/// bridge's resident set). Every expected message below is what ArgumentParser 1.x printed for
/// the same words before the change (recorded from the old binary), including which of several
/// problems it named first.
@Suite("E1 nook-notify's command line")
struct NotifyCommandLineTests {
    /// nook-notify's own check of `--log-level` (StandardErrorLogging's message).
    static func levelProblem(_ name: String) -> String? {
        ["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(name)
            ? nil : "--log-level must be trace, debug, info, notice, warning, error or critical; got '\(name)'"
    }

    static func parse(_ arguments: [String]) throws(NotifyCommandLine.Problem) -> NotifyCommandLine {
        try NotifyCommandLine.parse(arguments, logLevelProblem: levelProblem)
    }

    @Test func e1_flagsInBothSpellingsAndTheirDefaults() throws {
        #expect(try Self.parse([]) == NotifyCommandLine())
        let line = try Self.parse(["--socket", "/run/n.sock", "--system", "--replace", "--module=alerts", "--log-level", "debug"])
        #expect(line.socket == "/run/n.sock" && line.system && line.replace && line.module == "alerts" && line.logLevel == "debug" && !line.help)
        // The last of a repeated flag wins; `--system=` is `--system`; `--` ends the flags.
        let again = try Self.parse(["--socket", "a", "--socket=b", "--system=", "--"])
        #expect(again.socket == "b" && again.system)
        #expect(try Self.parse(["--socket", ""]).socket == "")
    }

    @Test func e1_timeoutIsSecondsUnderWhatDBusClientsWait() throws {
        #expect(try Self.parse([]).timeout == 10)
        #expect(try Self.parse(["--timeout", "2.5"]).timeout == 2.5)
        #expect(try Self.parse(["--timeout=20"]).timeout == 20)
        for value in ["0", "25", "abc", "-1", "nan"] {
            #expect(throws: NotifyCommandLine.Problem("--timeout must be a number of seconds from 0.1 to 20; got '\(value)'")) {
                try Self.parse(["--timeout=\(value)"])
            }
        }
        #expect(NotifyCommandLine.usage.contains("\n  --timeout <seconds> "))
    }

    @Test func e1_helpAnywhereWinsOverEveryProblem() throws {
        for arguments in [["--help"], ["-h"], ["--bogus", "--help"], ["--help", "--bogus"], ["--help=1"], ["--socket=a=b", "-h"], ["--log-level", "nope", "-h"]] {
            #expect(try Self.parse(arguments).help, "\(arguments)")
        }
        #expect(NotifyCommandLine.usage.hasPrefix("OVERVIEW: Show freedesktop notifications (notify-send) on the Nook display.\n\n"))
        #expect(NotifyCommandLine.usage.hasSuffix("  -h, --help              Show help information.\n\n"))
        for flag in ["--socket <socket>", "--system", "--replace", "--module <module>", "--log-level <log-level>"] {
            #expect(NotifyCommandLine.usage.contains("\n  \(flag) "), "\(flag)")
        }
    }

    @Test func e1_badCommandLinesGetArgumentParsersMessages() {
        let socketHelp = "--socket <socket>  nookd's socket (default: $NOOK_SOCKET, else $XDG_RUNTIME_DIR/nook/nookd.sock if it exists, else /run/nook/nookd.sock)."
        let levelMust = "--log-level must be trace, debug, info, notice, warning, error or critical; got"
        let cases: [([String], String, String?)] = [
            (["--bogus"], "Unknown option '--bogus'", nil),
            (["-x"], "Unknown option '-x'", nil),
            (["extra"], "Unexpected argument 'extra'", nil),
            (["--", "foo"], "Unexpected argument 'foo'", nil),
            (["extra", "--bogus"], "Unknown option '--bogus'", nil),
            (["--socket"], "Missing value for '--socket <socket>'", socketHelp),
            (["--socket", "--system"], "Missing value for '--socket <socket>'", socketHelp),
            (["--socket", "-x"], "Missing value for '--socket <socket>'", socketHelp),
            (["--socket="], "Missing value for '--socket <socket>'", socketHelp),
            (["--bogus", "--socket"], "Missing value for '--socket <socket>'", socketHelp),
            (["--module="], "Missing value for '--module <module>'", "--module <module>  nookd queue module the cards go to (default: the foreground one)."),
            (["--log-level=debug", "--log-level"], "Missing value for '--log-level <log-level>'", "--log-level <log-level>  Log level: trace, debug, info, notice, warning, error."),
            (["--system=1"], "The option '--system' does not take any value, but '1' was specified.", nil),
            (["--system=x", "--bogus"], "The option '--system' does not take any value, but 'x' was specified.", nil),
            (["--module", ""], "--module must not be empty", nil),
            (["--module", "", "--bogus"], "--module must not be empty", nil),
            (["--log-level", "nope"], "\(levelMust) 'nope'", nil),
            (["--log-level", ""], "\(levelMust) ''", nil),
            (["--log-level", "nope", "--bogus"], "\(levelMust) 'nope'", nil),
            (["extra", "--log-level", "nope"], "\(levelMust) 'nope'", nil),
        ]
        for (arguments, message, help) in cases {
            do {
                _ = try Self.parse(arguments)
                Issue.record("\(arguments) accepted")
            } catch {
                #expect(error.description == message, "\(arguments)")
                #expect(error.help == help, "\(arguments)")
            }
        }
    }

    /// A value for every flag in nook-notify's table: a flag added without one fails here.
    static let sampleValues = ["--socket": "/run/n.sock", "--module": "alerts", "--log-level": "debug", "--timeout": "2"]

    @Test func e1_everyFlagInTheTableIsReadRefusedWithoutItsValueAndInTheHelp() throws {
        for option in NotifyCommandLine.options {
            let spelled = "\n  " + option.names.joined(separator: ", ") + (option.value.map { " " + $0 } ?? "") + " "
            #expect(NotifyCommandLine.usage.contains(spelled), "\(option.name) is not in --help as \(spelled)")
            guard option.takesValue else {
                #expect(try Self.parse([option.name]) != NotifyCommandLine(), "\(option.name) changes nothing")
                continue
            }
            let value = try #require(Self.sampleValues[option.name], "no sample value for \(option.name)")
            #expect(try Self.parse([option.name, value]) != NotifyCommandLine(), "\(option.name) changes nothing")
            #expect(throws: NotifyCommandLine.Problem("Missing value for '\(option.name) \(option.value!)'", help: "\(option.name) \(option.value!)  \(option.help)")) {
                try Self.parse([option.name])
            }
        }
        #expect(Set(Self.sampleValues.keys) == Set(NotifyCommandLine.options.filter(\.takesValue).map(\.name)))
    }

    @Test func e1_theErrorTextIsArgumentParsersThreeLines() {
        let usage = "Usage: nook-notify [--socket <socket>] [--system] [--replace] [--module <module>] [--log-level <log-level>] [--timeout <seconds>]\n  See 'nook-notify --help' for more information.\n"
        #expect(NotifyCommandLine.errorText(.init("Unknown option '--bogus'")) == "Error: Unknown option '--bogus'\n" + usage)
        #expect(NotifyCommandLine.errorText(.init("Missing value for '--socket <socket>'", help: "--socket <socket>  x"))
                == "Error: Missing value for '--socket <socket>'\nHelp:  --socket <socket>  x\n" + usage)
    }
}

/// nook-notify(8) says what the command line accepts and what a bad one prints: every option,
/// the log levels and the timeout's range the checks use, and exit 64 with the first problem.
@Suite("E1 nook-notify(8) and its command line agree")
struct NotifyManPageTests {
    static func page() throws -> String {
        let file = #filePath
        let root = String(file[..<file.range(of: "/Tests/")!.lowerBound])
        return try String(contentsOfFile: root + "/docs/man/nook-notify.8", encoding: .utf8)
    }

    @Test func e1_nookNotify8NamesEveryOptionTheLevelsAndTheRangeTheChecksUse() throws {
        let page = try Self.page()
        for option in NotifyCommandLine.options {
            let flag = option.name.hasPrefix("--") ? "-" + option.name.dropFirst(2) : String(option.name.dropFirst())
            #expect(page.contains(".It Fl \(flag)") || page.contains("Fl \(flag)"), "nook-notify(8) has no entry for \(option.name)")
        }
        // The levels StandardErrorLogging's check takes (NotifyCommandLineTests.levelProblem).
        let levels = "trace, debug, info, notice, warning, error or critical"
        #expect(NotifyCommandLineTests.levelProblem("loud")?.contains(levels) == true)
        #expect(page.contains(levels), "the page lists the levels --log-level takes: \(levels)")
        let range = NotifyCommandLine.timeoutRange
        #expect(page.contains("\(range.lowerBound) to \(Int(range.upperBound))"), "the page gives --timeout's range")
        // The problems it names, as the page shows them.
        for arguments in [["--bogus"], ["--timeout", "0"]] {
            do {
                _ = try NotifyCommandLineTests.parse(arguments)
                Issue.record("\(arguments) was taken")
            } catch {
                let first = NotifyCommandLine.errorText(error).split(separator: "\n").first.map(String.init) ?? ""
                #expect(page.contains(first), "nook-notify(8) shows \(first)")
            }
        }
    }
}
