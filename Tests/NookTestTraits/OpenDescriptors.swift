import Foundation
import Testing

/// How many descriptors the test process holds, and the bound a child start checks.
///
/// Why a bound: Foundation's `Process.run()` lists `/proc/self/fd` and copies 256 bytes of
/// every entry's name; once the listing fills readdir's whole buffer, the copy of the last
/// entries reads past that buffer's end, and the run crashes when the next page is unmapped.
/// The buffer fills only when the process holds well over a thousand descriptors.
public enum OpenDescriptors {
    /// The most descriptors the test process may hold when it starts a child.
    public static let bound = 1000

    /// The descriptors open in this process now (the listing's own excluded).
    public static var count: Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var entries = 0
        while let entry = readdir(directory) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { $0.first == UInt8(ascii: ".") }
            if !isDot { entries += 1 }
        }
        return max(entries - 1, 0)
    }

    /// Where each open descriptor leads (`readlink` of `/proc/self/fd/N`: `pipe:[inode]`, a path).
    public static var targets: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
    }

    /// Records an issue when the process holds `bound` descriptors or more, naming what kinds
    /// they are, so a leak shows as a failing test rather than as a crash in `Process.run()`.
    static func expectWithinBound(starting name: String?, sourceLocation: SourceLocation) {
        let open = count
        guard open >= bound else { return }
        var kinds: [String: Int] = [:]
        for target in targets {
            let kind = target.hasPrefix("/") ? target : String(target.prefix { $0 != ":" })
            kinds[kind, default: 0] += 1
        }
        let most = kinds.sorted { $0.value > $1.value }.prefix(8).map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        Issue.record("\(open) descriptors open in the test process when starting \(name ?? "a child") (bound \(bound)): \(most)",
                     sourceLocation: sourceLocation)
    }
}
