#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import NookActivities
import NookProtocol
import NookSystem

@main
struct Nookctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nookctl",
        abstract: "Talk to nookd: show activities on the nook's display and control it.",
        discussion: """
            Exit codes: 0 success; 1 nookd refused the request (bad input, unknown module, queue full); \
            2 the sound was not played (sound play: no output, volume 0, silenced by the room); 3 nookd could not be reached; 4 no such activity; 5 the activity belongs to another user \
            (update, cancel, dismiss); 64 bad command line. \
            enqueue --wait exits with how the activity ended: 0 shown to the end, 10 dismissed, \
            11 cancelled, 12 coalesced, 13 expired, 14 blocker timed out, 15 rejected, 16 connection lost.
            Shell completions: nookctl --generate-completion-script bash|zsh|fish.
            """,
        subcommands: OperationCommands.subcommands() + OperationCommands.local)

    /// `nookctl enqueue` with a well-formed command line skips ArgumentParser (see
    /// ``EnqueueCommandLine``); everything else goes through it.
    static func main() {
        let arguments = GlobalOptions.movedAfterSubcommand(Array(CommandLine.arguments.dropFirst()))
        if arguments.first == "enqueue", let plain = EnqueueCommandLine.parse(arguments.dropFirst()) {
            plain.options.send(plain.activity)
            return
        }
        main(arguments)
    }
}

/// Options every subcommand takes.
struct Connection: ParsableArguments {
    @Option(help: "nookd's socket (default: $NOOK_SOCKET, else $XDG_RUNTIME_DIR/nook/nookd.sock if it exists, else the system service's /run/nook/nookd.sock).")
    var socket: String?
    @Flag(help: "Print the answer as JSON (one object per line) for scripts.")
    var json = false

    var endpoint: Endpoint { Endpoint(socket: socket, json: json) }
    var path: String { endpoint.path }

    func run<Answer: NookAnswer>(_ operation: NookOperation, as type: Answer.Type, human: (Answer) -> String?) {
        endpoint.run(operation, as: type, human: human)
    }

    func run<Answer: NookAnswer>(fetching fetch: (NookClient) throws(ClientError) -> (Answer, JSONValue), human: (Answer) -> String?) {
        endpoint.run(fetching: fetch, human: human)
    }

    func warn(_ warning: String?) { endpoint.warn(warning) }

    func fail(_ error: ClientError) -> Never { endpoint.fail(error) }
}

/// Where nookctl sends a request and how it prints the answer: ``Connection``'s values
/// without ArgumentParser, for `nookctl enqueue`'s own reading of its command line
/// (initialising ArgumentParser's option wrappers cost a tenth of that command's run).
struct Endpoint {
    var socket: String?
    var json: Bool

    var path: String { socket ?? NookClient.defaultSocketPath }

    /// Runs one request and prints its result: as nookd sent it with `--json`, else through
    /// `human` reading the typed answer.
    func run<Answer: NookAnswer>(_ operation: NookOperation, as _: Answer.Type, human: (Answer) -> String?) {
        run(fetching: { (client) throws(ClientError) in try client.request(Request(id: .number(1), operation: operation), as: Answer.self) }, human: human)
    }

    /// ``run(_:as:human:)`` for answers asked for in several requests (`list` and `history`
    /// pages, joined by `fetch`).
    func run<Answer: NookAnswer>(fetching fetch: (NookClient) throws(ClientError) -> (Answer, JSONValue), human: (Answer) -> String?) {
        do {
            let client = try NookClient(path: path)
            let (answer, result) = try fetch(client)
            if json { print(result.serialized) } else if let text = human(answer) { print(text) }
            warn(client.warning)
            warn(answer)
        } catch {
            // The do-block throws only ClientError (typed throws).
            fail(error)
        }
    }

    /// nookd's warning beside an answer, on standard error: the request was done, with a
    /// caveat (SPEC J1: not saved to the journal).
    func warn(_ warning: String?) {
        guard let warning else { return }
        writeWhole("nookctl: warning: \(warning)\n", to: 2)
    }

    /// The answer's own warnings (an icon name nookd does not know): done, and exit 0.
    func warn(_ answer: some NookAnswer) {
        guard let answer = answer as? any NookWarningAnswer else { return }
        for warning in answer.warnings { warn(warning) }
    }

    func fail(_ error: ClientError) -> Never {
        if json {
            print(JSONValue.object([("error", .string(error.description)), ("exitCode", .number(Double(error.exitCode)))]).serialized)
        }
        writeWhole("nookctl: \(error)\n", to: 2)
        Glibc.exit(error.exitCode)
    }
}
