import NookLogging
import NookSystem

/// nook-http's command line, read by ``FlagReader`` as nook-mqtt's is: the server's flags, or
/// `hash-token NAME SCOPES` to make a token and its line for the token file.
public struct HTTPCommandLine: Sendable, Equatable {
    public var config: String?
    public var socket: String?
    public var listen: [HTTPListenAddress] = []
    public var logLevel = "info"
    public var help = false
    public var version = false
    /// `hash-token NAME SCOPES`: the name and scopes of the token to make.
    public var hashToken: (name: String, scopes: Set<HTTPScope>)?

    public static let versionText = "nook-http 1.0"

    public init() {}

    public static func == (lhs: HTTPCommandLine, rhs: HTTPCommandLine) -> Bool {
        lhs.config == rhs.config && lhs.socket == rhs.socket && lhs.listen == rhs.listen && lhs.logLevel == rhs.logLevel
            && lhs.help == rhs.help && lhs.version == rhs.version && lhs.hashToken?.name == rhs.hashToken?.name
            && lhs.hashToken?.scopes == rhs.hashToken?.scopes
    }

    public typealias Problem = CommandLineProblem

    /// Every flag nook-http accepts, in the order `--help` lists them, each with what it sets.
    static let table = FlagTable<HTTPCommandLine>([
        .value("--config", placeholder: "FILE",
               help: "The config file (default: \(HTTPConfig.defaultPath) if it exists, else the built-in defaults).") { $0.config = $1 },
        .value("--socket", placeholder: "PATH", help: "nookd's socket (default: $NOOK_SOCKET, else /run/nook/nookd.sock).") { $0.socket = $1 },
        .value("--listen", placeholder: "ADDRESS:PORT",
               help: "Listen there instead of http.listen (default 127.0.0.1:\(HTTPListenAddress.defaultPort)); may be given more than once.") {
            (line, value) throws(Problem) in
            guard let address = HTTPListenAddress(parsing: value) else {
                throw Problem("--listen must be ADDRESS:PORT with an IPv4 or [IPv6] address, such as 127.0.0.1:8722 or [::1]:8722; got '\(value)'")
            }
            line.listen.append(address)
        },
        .logLevel(placeholder: "LEVEL") { $0.logLevel = $1 },
        .toggle("--version", help: "Show the version and exit.") { $0.version = true },
        .toggle("-h", "--help", help: "Show this help and exit.") { $0.help = true },
    ])

    public static var options: [FlagReader.Option] { table.options }

    public static func parse(_ arguments: [String]) throws(Problem) -> HTTPCommandLine {
        var line = HTTPCommandLine()
        if arguments.first == "hash-token" {
            let rest = Array(arguments.dropFirst())
            if rest == ["--help"] || rest == ["-h"] { line.help = true; return line }
            guard rest.count == 2 else { throw Problem("hash-token takes a NAME and its SCOPES (read, publish, admin, joined by commas), such as: hash-token grafana publish") }
            guard HTTPTokenFile.isValidName(rest[0]) else { throw Problem("the token's name '\(rest[0])' must be 1 to 64 letters, digits, '.', '_' or '-'") }
            var scopes: Set<HTTPScope> = []
            for word in rest[1].split(separator: ",") {
                guard let scope = HTTPScope(rawValue: String(word)) else { throw Problem("unknown scope '\(word)': read, publish or admin") }
                scopes.insert(scope)
            }
            guard !scopes.isEmpty else { throw Problem("hash-token needs at least one scope: read, publish or admin") }
            line.hashToken = (rest[0], scopes)
            return line
        }
        return try table.read(arguments, into: line, rejectingEmpty: true)
    }

    public static var usage: String {
        """
        OVERVIEW: Serve the Nook display over HTTP: a JSON API, ntfy, Gotify and AWTRIX publishing, alert webhooks, the live view and a page.

        A client of nookd's socket like the other bridges. Loopback only unless http.listen or --listen says otherwise; tokens from http.tokens. Settings: \(HTTPConfig.defaultPath).

        USAGE: nook-http [--config FILE] [--socket PATH] [--listen ADDRESS:PORT] [--log-level LEVEL]
               nook-http hash-token NAME SCOPE[,SCOPE]

        OPTIONS:

        """ + FlagReader.optionsHelp(options) + """

        SUBCOMMANDS:
          hash-token NAME SCOPES  Make a new token with SCOPES (read, publish, admin, joined by commas):
                                  print the token once on standard error and its line for the token file on standard output.

        """
    }
}
