#if canImport(Glibc)
import Glibc
#endif

/// What reading flags with ArgumentParser costs a process against the hand reader
/// (`FlagReader`): two probes that read nook-mqtt's flags and differ only in the reader, release
/// builds statically linked as `Hardware/install` builds the programs (`nook-bench flags`).
/// Start-up is process start to exit, the two alternated call by call; idle memory is each
/// probe's RSS and private dirty memory a second after it read its flags and dropped its pages
/// as the bridges do after start-up (`IdleTrim.dropPages`).
struct FlagFigures {
    static let probes = (argumentParser: "flag-probe-argument-parser", flagReader: "flag-probe-flag-reader")
    let daemon: DaemonFigures
    let arguments = ["--config", "/etc/nook/mqtt.toml", "--socket", "/run/nook/nookd.sock", "--log-level", "warning"]

    func prepare() throws {
        for product in [Self.probes.argumentParser, Self.probes.flagReader] where getenv("NOOK_BENCH_NO_BUILD") == nil {
            let status = spawnAndWait("/usr/bin/env", ["swift", "build", "-c", "release", "--static-swift-stdlib",
                                                       "--package-path", daemon.packageRoot, "--product", product], quiet: true)
            guard status == 0 else { throw BenchError("could not build \(product) (swift build exited \(status))") }
        }
    }

    func path(_ probe: String) -> String { daemon.binaries + "/" + probe }

    /// Each probe's start-up in milliseconds (5 rounds of 20 alternated calls, the median call
    /// of each round), and the ratio of the two in each round.
    func startUp() async -> (argumentParser: Spread, flagReader: Spread, ratio: Spread) {
        var argumentParser: [Double] = [], flagReader: [Double] = []
        let ratio = await rounds(5) {
            var samples: ([Double], [Double]) = ([], [])
            for _ in 0..<20 {
                samples.1.append(secondsTaken { _ = spawnAndWait(path(Self.probes.flagReader), arguments, quiet: true) } * 1000)
                samples.0.append(secondsTaken { _ = spawnAndWait(path(Self.probes.argumentParser), arguments, quiet: true) } * 1000)
            }
            argumentParser.append(median(samples.0))
            flagReader.append(median(samples.1))
            return median(samples.0) / median(samples.1)
        }
        return (Spread(rounds: argumentParser), Spread(rounds: flagReader), ratio)
    }

    /// A probe's RSS and private dirty memory (MiB) once it has read its flags and dropped its
    /// pages, in 3 rounds of a fresh process each.
    func idleMemory(_ probe: String) async throws -> (rss: Spread, privateDirty: Spread) {
        var dirty: [Double] = []
        let rss = try await rounds(3) {
            var pid: pid_t = 0
            guard spawn(["/usr/bin/env", "FLAG_PROBE_STAY=1", path(probe)] + arguments, pid: &pid, quiet: true) == 0 else {
                throw BenchError("could not start \(probe)")
            }
            defer { stop(pid) }
            usleep(1_000_000)
            dirty.append(daemon.memory(pid: pid).privateDirtyMiB)
            return daemon.rssMiB(pid: pid)
        }
        return (rss, Spread(rounds: dirty))
    }
}

func reportFlagFigures(_ daemon: DaemonFigures) async {
    let figures = FlagFigures(daemon: daemon)
    do {
        try figures.prepare()
        let start = await figures.startUp()
        report("flags_argument_parser_start_ms", start.argumentParser)
        report("flags_flag_reader_start_ms", start.flagReader)
        report("flags_argument_parser_vs_flag_reader_start", start.ratio)
        for (name, probe) in [("argument_parser", FlagFigures.probes.argumentParser), ("flag_reader", FlagFigures.probes.flagReader)] {
            let memory = try await figures.idleMemory(probe)
            report("flags_\(name)_idle_rss_mib", memory.rss)
            report("flags_\(name)_idle_private_dirty_mib", memory.privateDirty)
        }
    } catch {
        print("flag figures skipped: \(error)")
    }
}
