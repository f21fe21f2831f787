import ArgumentParser
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

// nook-bench's probe of ArgumentParser: nook-mqtt's flags read by a `ParsableCommand`, then
// either exit (start-up time) or, with FLAG_PROBE_STAY set, drop pages as the bridges do after
// start-up and wait to be stopped (idle memory). `flag-probe-flag-reader` differs only in the reader.
@main
struct FlagProbe: ParsableCommand {
    @Option(help: "Config file.") var config: String?
    @Option(help: "nookd's socket.") var socket: String?
    @Option(help: "Log level.") var logLevel = "info"
    @Flag(help: "Clear the retained discovery messages.") var removeDiscovery = false

    func run() {
        guard getenv("FLAG_PROBE_STAY") != nil else { return }
        StopSignals.restoreDefaults()
        IdleTrim.dropPages()
        while true { pause() }
    }
}
