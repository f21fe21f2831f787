import NookSystem
import Testing

/// The one hand reader of command lines (nookd, nook-mqtt, nook-notify): words in, the flags of
/// a program's table out, or the first problem where it is met.
@Suite("FlagReader: a program's flag table reads its command line")
struct FlagReaderTests {
    static let options: [FlagReader.Option] = [
        .init("--socket", value: "PATH", help: "Socket."),
        .init("--rotation", value: "DEGREES", help: "Rotation.", check: { Int($0) == nil ? "--rotation must be a number, got \($0)" : nil }),
        .init("--check", help: "Check and exit."),
        .init("-h", "--help", help: "Help."),
    ]

    static func read(_ arguments: [String], flagPrefix: String = "--") throws(FlagReader.Problem) -> [FlagReader.Flag] {
        try FlagReader.read(arguments, options: options, flagPrefix: flagPrefix)
    }

    @Test func readsBothSpellingsInOrderUnderTheLongName() throws {
        #expect(try Self.read([]) == [])
        #expect(try Self.read(["--socket", "/s", "--check", "--rotation=90", "-h", "--socket=-x"]) == [
            .init(name: "--socket", value: "/s"), .init(name: "--check", value: nil), .init(name: "--rotation", value: "90"),
            .init(name: "--help", value: nil), .init(name: "--socket", value: "-x"),
        ])
        // `--` lets a value start with `-`; `-` does not (ArgumentParser's rule).
        #expect(try Self.read(["--socket", "-x"]) == [.init(name: "--socket", value: "-x")])
        #expect(throws: FlagReader.Problem.missingValue(flag: "--socket")) { try Self.read(["--socket", "-x"], flagPrefix: "-") }
        #expect(try Self.read(["--socket="]) == [.init(name: "--socket", value: "")])
    }

    @Test func theFirstProblemIsThrownWhereItIsMet() {
        let cases: [([String], FlagReader.Problem)] = [
            (["--colour", "red"], .unknownOption("--colour")),
            (["--colour=red"], .unknownOption("--colour")),
            (["-x"], .unknownOption("-x")),
            (["serve"], .unexpectedArgument("serve")),
            (["--socket"], .missingValue(flag: "--socket")),
            (["--socket", "--check"], .missingValue(flag: "--socket")),
            (["--check=yes"], .switchWithValue(flag: "--check", value: "yes")),
            (["--rotation", "ninety", "--colour"], .badValue(flag: "--rotation", problem: "--rotation must be a number, got ninety")),
            (["--colour", "--rotation", "ninety"], .unknownOption("--colour")),
        ]
        for (arguments, problem) in cases {
            #expect(throws: problem, "\(arguments)") { try Self.read(arguments) }
        }
        #expect(FlagReader.Problem.unknownOption("--colour").description == "unknown option '--colour'")
        #expect(FlagReader.Problem.missingValue(flag: "--socket").description == "missing value for '--socket'")
        #expect(FlagReader.Problem.switchWithValue(flag: "--check", value: "1").description == "--check takes no value")
        #expect(FlagReader.Problem.badValue(flag: "--rotation", problem: "no").description == "no")
    }

    @Test func lenientReadingKeepsStraysForLater() throws {
        let read = try FlagReader.readLeniently(["extra", "--colour", "--check", "--", "tail"], options: Self.options, dashDashEndsFlags: true)
        #expect(read.flags == [.init(name: "--check", value: nil)])
        #expect(read.strays == [.unexpectedArgument("extra"), .unknownOption("--colour"), .unexpectedArgument("tail")])
        #expect(throws: FlagReader.Problem.missingValue(flag: "--socket")) {
            try FlagReader.readLeniently(["--colour", "--socket="], options: Self.options, emptyInlineIsMissing: true)
        }
    }

    @Test func helpListsEverySpellingOfEveryFlagInTheTablesOrder() {
        #expect(FlagReader.optionsHelp(Self.options) == """
              --socket PATH
                    Socket.
              --rotation DEGREES
                    Rotation.
              --check
                    Check and exit.
              -h, --help
                    Help.

            """)
        #expect(FlagReader.option(named: "-h", in: Self.options)?.name == "--help")
        #expect(FlagReader.option(named: "--nope", in: Self.options) == nil)
    }
}
