import NookSystem
import Testing

/// The one reader of nookd's and the bridges' command lines: each program declares its flags as
/// rows, each row what it sets, and the table reads the words onto the program's line.
@Suite("FlagTable: a program's flags as rows, read onto its command line")
struct FlagTableTests {
    struct Line: Sendable, Equatable {
        var socket: String?
        var ports: [Int] = []
        var check = false
        var help = false
    }

    static let table = FlagTable<Line>([
        .value("--socket", placeholder: "<socket>", help: "Socket.") { $0.socket = $1 },
        .value("--port", placeholder: "<port>", help: "Port.", check: FlagTable<Line>.wholeNumber("--port")) { (line, value) throws(CommandLineProblem) in
            guard let port = Int(value), port > 0 else { throw CommandLineProblem("--port must be above 0, got \(value)") }
            line.ports.append(port)
        },
        .toggle("--check", help: "Check and exit.") { $0.check = true },
        .toggle("-h", "--help", help: "Help.") { $0.help = true },
    ])

    @Test func eachRowSetsItsPartOfTheLineInOrder() throws {
        #expect(Self.table.options.map(\.names) == [["--socket"], ["--port"], ["--check"], ["-h", "--help"]])
        #expect(try Self.table.read([], into: Line()) == Line())
        let line = try Self.table.read(["--port", "1", "--socket=/s", "-h", "--port=2", "--check"], into: Line())
        #expect(line == Line(socket: "/s", ports: [1, 2], check: true, help: true))
        #expect(try Self.table.read(["--socket="], into: Line()).socket == "")
    }

    @Test func nooksWordingThrowsTheFirstProblemWhereItIsMet() {
        let cases: [([String], String)] = [
            (["--colour"], "unknown option '--colour'"),
            (["--socket"], "missing value for '--socket'"),
            (["--check=1"], "--check takes no value"),
            (["--port", "x"], "The value 'x' is invalid for '--port <port>'"),
            (["--port", "0", "--colour"], "unknown option '--colour'"),
            (["--port", "0"], "--port must be above 0, got 0"),
        ]
        for (arguments, problem) in cases {
            #expect(throws: CommandLineProblem(problem), "\(arguments)") { try Self.table.read(arguments, into: Line()) }
        }
        #expect(throws: CommandLineProblem("--socket needs a value, got an empty one")) {
            try Self.table.read(["--socket="], into: Line(), rejectingEmpty: true)
        }
    }

    @Test func argumentParsersWordingNamesTheFlagsHelpAndLeavesTheStraysToTheProgram() throws {
        var line = Line()
        let strays = try Self.table.readAsArgumentParser(["--sockt", "x", "--check"], into: &line, emptyInlineIsMissing: false, suggesting: true)
        #expect(line.check)
        #expect(strays == [.unknownOption("--sockt"), .unexpectedArgument("x")])
        #expect(Self.table.argumentParserProblem(.unknownOption("--sockt"), suggesting: true)
                == CommandLineProblem("Unknown option '--sockt'. Did you mean '--socket'?"))
        #expect(Self.table.argumentParserProblem(.unknownOption("--sockt"), suggesting: false) == CommandLineProblem("Unknown option '--sockt'"))
        #expect(throws: CommandLineProblem("Missing value for '--socket <socket>'", help: "--socket <socket>  Socket.")) {
            var line = Line()
            _ = try Self.table.readAsArgumentParser(["--socket", "-x"], into: &line, emptyInlineIsMissing: false, suggesting: false)
        }
        #expect(throws: CommandLineProblem("The value 'x' is invalid for '--port <port>'", help: "--port <port>  Port.")) {
            var line = Line()
            _ = try Self.table.readAsArgumentParser(["--port=x"], into: &line, emptyInlineIsMissing: false, suggesting: false)
        }
        let text = CommandLineProblem("Missing value", help: "--socket <socket>  Socket.").argumentParserText(usage: "prog <options>", program: "prog")
        #expect(text == "Error: Missing value\nHelp:  --socket <socket>  Socket.\nUsage: prog <options>\n  See 'prog --help' for more information.\n")
    }
}
