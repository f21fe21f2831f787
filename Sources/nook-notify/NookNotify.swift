import NookLogging
import NookNotify
import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// nook-notify: reads its flags and runs the notification bridge (SPEC E1). The flags are read
/// by `NotifyCommandLine`, not ArgumentParser, which would link FoundationEssentials (docs/benchmarks.md,
/// `notify_bridge_idle_rss_mib`); help, messages and exit 64 are as they were.
@main
enum NookNotifyCommand {
    static func main() {
        let line: NotifyCommandLine
        do {
            line = try NotifyCommandLine.parse(Array(CommandLine.arguments.dropFirst()), logLevelProblem: StandardErrorLogging.problem(withLevel:))
        } catch {
            standardError(NotifyCommandLine.errorText(error))
            exit(64)
        }
        if line.help {
            standardOutput(NotifyCommandLine.usage)
            exit(0)
        }
        StandardErrorLogging.bootstrap(level: line.logLevel)
        let options = NotificationBridge.Options(socketPath: line.socket ?? NookClient.defaultSocketPath, systemBus: line.system,
                                                 replace: line.replace, module: line.module, timeout: line.timeout)
        do {
            try NotificationBridge(options: options, logger: Logger(label: "nook-notify")).run()
        } catch {
            standardError("nook-notify: \(error)\n")
            exit(1)
        }
    }

    static func standardOutput(_ text: String) { write(text, to: 1) }
    static func standardError(_ text: String) { write(text, to: 2) }

    static func write(_ text: String, to descriptor: Int32) { writeWhole(text, to: descriptor) }
}
