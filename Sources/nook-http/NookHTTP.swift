import NookLogging
import NookActivities
import NookConfig
import NookHTTP
import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// nook-http: reads its flags and config and runs the HTTP server (SPEC H1–H4, V1–V2). The
/// flags are read by `HTTPCommandLine` (FlagReader), as nook-mqtt's are.
@main
enum NookHTTPCommand {
    static func main() {
        StopSignals.restoreDefaults()
        // Held from the first line of main: a SIGTERM while the config and tokens are read and
        // the server is made stops it as soon as it serves (exit 0, not death by the signal),
        // and a SIGHUP then is the reload it asks for, not lost. No descriptor left for the
        // relay's pipe is an error now: nook-http never serves with its signals unhandled.
        do {
            try SignalRelay.hold()
        } catch {
            standardError("nook-http: \(error)\n")
            exit(1)
        }
        let line: HTTPCommandLine
        do {
            line = try HTTPCommandLine.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            standardError("nook-http: error: \(error)\nSee 'nook-http --help'.\n")
            exit(64)
        }
        if line.help {
            print(HTTPCommandLine.usage, terminator: "")
            exit(0)
        }
        if line.version {
            print(HTTPCommandLine.versionText)
            exit(0)
        }
        if let wanted = line.hashToken {
            let token = HTTPTokenFile.newToken()
            standardError("token for \(wanted.name) (give it to the sender; only its hash below is kept): \(token)\n")
            print(HTTPTokenFile.line(name: wanted.name, scopes: wanted.scopes, token: token))
            exit(0)
        }
        // Every publish that brings no id gets one here: 4 KiB of randomness per getrandom(2)
        // call, not two calls per id (see IDRandomness).
        IDRandomness.install(fill: SystemRandom.fill)
        StandardErrorLogging.bootstrap(level: line.logLevel)
        let logger = Logger(label: "nook-http")
        let config: HTTPConfig
        do {
            if let path = line.config {
                config = try HTTPConfig.load(path: path)
            } else if fileExists(HTTPConfig.defaultPath) {
                config = try HTTPConfig.load(path: HTTPConfig.defaultPath)
            } else {
                config = HTTPConfig()
            }
        } catch {
            standardError("nook-http: \(error)\n")
            exit(78)
        }
        var tokens: [HTTPToken]?
        if let path = config.tokens {
            do {
                tokens = try HTTPTokenFile.load(path: path)
            } catch {
                standardError("nook-http: \(error)\n")
                exit(78)
            }
            logger.info("\(tokens?.count ?? 0) token(s) from \(path)")
        }
        var options = config.serverOptions
        if !line.listen.isEmpty { options.listen = line.listen }
        let socketPath = line.socket ?? NookClient.defaultSocketPath
        let nookd = NookdLink(options: config.nookdOptions(socketPath: socketPath), logger: logger)
        let routes = HTTPRouteTable.standard(config: config, logger: logger)
        // LaMetric's TLS listener (M4): a certificate that cannot be read stops the start, naming its key and file.
        var tls: HTTPTLSContext?
        if !options.tlsListen.isEmpty {
            do {
                tls = try config.lametric.context()
            } catch {
                standardError("nook-http: \(error)\n")
                exit(78)
            }
        }
        do {
            let server = try HTTPServer(options: options, routes: routes, access: HTTPAccess(tokens: tokens, rateLimit: config.rateLimit),
                                        nookd: nookd, tls: tls, logger: logger)
            if let path = config.tokens {
                server.reloadTokens = {
                    do throws(HTTPTokenFileError) { return .success(try HTTPTokenFile.load(path: path)) } catch { return .failure(error) }
                }
            }
            // The signals held since main began reach the server now, in order; later ones as they come.
            try HTTPStopSignals.install(stopping: server)
            var said = ""
            for address in server.addresses + server.tlsAddresses {
                if !address.isLoopback && tokens == nil {
                    logger.warning("listening on \(address), which is not loopback, with no token file (http.tokens): only loopback clients are served")
                }
            }
            for address in server.addresses { said += "listening on \(address)\n" }
            for address in server.tlsAddresses {
                said += "listening on \(address) (TLS: LaMetric's local API, \(HTTPTLSContext.libraryVersion))\n"
            }
            // The first lines on standard output say where it listens (a port of 0 is the kernel's
            // choice), written at once: print's buffer would hold them while stdout is a pipe.
            writeWhole(said, to: 1)
            // LaMetric icon ids nookd lacks (M3), fetched on a thread of their own.
            if let source = config.icons.source {
                IconFetcher(settings: config.icons, source: source, socketPath: socketPath, logger: logger).start()
            }
            logger.info("nook-http on \((server.addresses + server.tlsAddresses).map(\.description).joined(separator: ", ")); nookd at \(socketPath)")
            try server.run()
        } catch {
            standardError("nook-http: \(error)\n")
            exit(1)
        }
    }

    static func standardError(_ text: String) {
        writeWhole(text, to: 2)
    }
}
