import NookSystem
#if canImport(Glibc)
import Glibc
#endif

// nook-bench's probe of the hand reader: nook-mqtt's flags read by `FlagReader`, then either
// exit (start-up time) or, with FLAG_PROBE_STAY set, drop pages as the bridges do after start-up
// and wait to be stopped (idle memory). `flag-probe-argument-parser` differs only in the reader.
let options: [FlagReader.Option] = [
    .init("--config", value: "FILE", help: "Config file."),
    .init("--socket", value: "PATH", help: "nookd's socket."),
    .init("--log-level", value: "LEVEL", help: "Log level."),
    .init("--remove-discovery", help: "Clear the retained discovery messages."),
    .init("-h", "--help", help: "Show this help and exit."),
]
do {
    let flags = try FlagReader.read(Array(CommandLine.arguments.dropFirst()), options: options)
    if flags.contains(where: { $0.name == "--help" }) { print(FlagReader.optionsHelp(options), terminator: "") }
} catch {
    print("flag-probe-flag-reader: \(error)")
    exit(64)
}
if getenv("FLAG_PROBE_STAY") != nil {
    StopSignals.restoreDefaults()
    IdleTrim.dropPages()
    while true { pause() }
}
