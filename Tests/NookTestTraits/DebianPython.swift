import Foundation
import Testing

/// Where the real clients that need Python 3.12 or later run (Home Assistant, `aiontfy`,
/// `demetriek`): Debian 12's Python is 3.11. The suite inside the Debian 13 root
/// (`Hardware/dev/debian-swift test`) has them on its own `python3`; on the host they run in that
/// root (`Hardware/dev/debian-roots`, `$NOOK_ROOTS/trixie-amd64`) through
/// `Hardware/dev/debian-chroot`, where `Hardware/dev/install-deps` installs them (pinned, as every
/// PyPI package of the suite). The scripts are `Tests/NookHTTPTests/HomeAssistant/*.py`.
public enum DebianPython {
    public static let root = (ProcessInfo.processInfo.environment["NOOK_ROOTS"] ?? "/var/cache/nook/roots") + "/trixie-amd64"
    static let scripts = BuiltProducts.repository + "/Tests/NookHTTPTests/HomeAssistant"
    static let probe = "import sys, homeassistant; sys.exit(0 if sys.version_info >= (3, 12) else 1)"

    /// The command that runs a Python with Home Assistant, or nil.
    public static let prefix: [String]? = {
        if status("/usr/bin/env", ["python3", "-c", probe]) == 0 { return ["/usr/bin/env"] }
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: root + "/usr/bin/python3") else { return nil }
        let chroot = [BuiltProducts.repository + "/Hardware/dev/debian-chroot", root]
        return status(chroot[0], Array(chroot.dropFirst()) + ["python3", "-c", probe]) == 0 ? chroot : nil
    }()

    /// Why a test that needs `modules` is skipped.
    public static func missing(_ modules: String) -> String {
        "needs \(modules) on a Python of 3.12 or later: the Debian 13 root at \(root) with "
            + "Hardware/dev/install-deps' PyPI pins (run Hardware/dev/debian-roots, then Hardware/dev/install-deps as root)"
    }

    /// Whether that Python has every one of `modules` (`aiontfy`, `demetriek`, `paho.mqtt`).
    public static func has(_ modules: String...) -> Bool {
        guard let prefix else { return false }
        return status(prefix[0], Array(prefix.dropFirst()) + ["python3", "-c", "import " + modules.joined(separator: ", ")]) == 0
    }

    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs the script `name` (`ntfy_clients.py`, …) to its end: its exit status and its transcript
    /// (the test's `folder` is shown to the root at the same path, so Home Assistant's log stays
    /// readable here).
    public static func run(_ name: String, _ arguments: [String], folder: String,
                           environment: [String: String] = [:]) throws -> (status: Int32, transcript: String) {
        guard let prefix else { throw Missing(description: missing("homeassistant")) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: prefix[0])
        if prefix.count > 1 {
            // In the root: the scripts' folder and the test's folder bound in, the rest passed.
            let binds = ["--bind", "\(scripts):/opt/nook-ntfy-clients", "--bind", "\(folder):\(folder)"]
            let envs = environment.flatMap { ["--env", "\($0.key)=\($0.value)"] }
            process.arguments = Array(prefix.dropFirst()) + binds + envs + ["python3", "-B", "/opt/nook-ntfy-clients/" + name] + arguments
        } else {
            process.arguments = ["python3", "-B", scripts + "/" + name] + arguments
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe.closedOnExec()
        process.standardOutput = output
        process.standardError = output
        try process.runAlone()
        let transcript = String(decoding: output.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
        // A bound far past Home Assistant's longest run here (about 30 s), sanitizers and all.
        process.waitForExit(seconds: 600)
        return (process.terminationStatus, transcript)
    }

    /// A command's exit status; nil where it could not start.
    static func status(_ executable: String, _ arguments: [String]) -> Int32? { ProgramOutput.run(executable, arguments).status }
}
