#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// What the figures were measured on, printed before them: the same commit gives other ratios
/// on a CPU with other caches, and a loaded machine other spreads.
enum Machine {
    static func report() {
        print("cpu: \(cpuModel()) (\(sysconf(Int32(_SC_NPROCESSORS_ONLN))) online)")
        print("cache: \(caches().joined(separator: ", "))")
        print("load_average: \(loadAverage())")
    }

    static func loadAverage() -> String {
        text("/proc/loadavg").split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// Time the hypervisor ran something else while this VM's CPUs wanted to run (`steal` of
    /// /proc/stat's `cpu` line, all CPUs, in clock ticks of 10 ms); 0 on bare metal.
    static func stolenTicks() -> Int {
        let first = text("/proc/stat").prefix { $0 != "\n" }.split(separator: " ")
        return first.count > 8 ? Int(first[8]) ?? 0 : 0
    }

    /// CLOCK_MONOTONIC now, in nanoseconds: the clock `perf record -k mono` dates events with.
    static func monotonicNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    static func cpuModel() -> String {
        for line in text("/proc/cpuinfo").split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") { return line[line.index(after: colon)...].trimmed() }
        }
        return "unknown"
    }

    /// `L1d 32K 8-way`, … from sysfs (per core; the last level is shared).
    static func caches() -> [String] {
        var found: [String] = []
        for index in 0..<8 {
            let directory = "/sys/devices/system/cpu/cpu0/cache/index\(index)/"
            let level = text(directory + "level").trimmed()
            guard !level.isEmpty else { break }
            let type = text(directory + "type").trimmed()
            let suffix = type == "Data" ? "d" : type == "Instruction" ? "i" : ""
            let ways = text(directory + "ways_of_associativity").trimmed()
            let line = text(directory + "coherency_line_size").trimmed()
            found.append("L\(level)\(suffix) \(text(directory + "size").trimmed()) \(ways)-way \(line)B lines")
        }
        return found.isEmpty ? ["unknown"] : found
    }

    private static func text(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }
}

extension StringProtocol {
    func trimmed() -> String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
