#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookSystem

/// `nook-bench --against REV [--runs N] [GROUP]`: every figure of GROUP (or of the whole
/// benchmark) for this tree and for revision REV, in one sitting, alternated run by run
/// (new, old, old, new, …) so the machine's hour falls on both sides alike.
///
/// Both sides are built alike (`swift build -c release --static-swift-stdlib`, every product),
/// and each side runs its own nook-bench against its own programs: a figure measured in process
/// (render, queue, LED) is that revision's code, and the daemon figures start that revision's
/// nookd, nookctl and bridges. REV's tree is kept under the cache directory by its full commit,
/// built once. Each figure is printed as the median of its run pairs' ratios, new over old, with
/// their spread, then each side's run medians.
struct AgainstRevision {
    let packageRoot: String
    let revision: String
    let runs: Int
    let group: String?

    /// Reads `--against REV [--runs N] [GROUP]` (the arguments after the program's name), or nil
    /// when the command line does not start with `--against`.
    static func parse(_ arguments: [String], packageRoot: String) throws -> AgainstRevision? {
        guard arguments.first == "--against" else { return nil }
        var rest = arguments.dropFirst()
        guard let revision = rest.popFirst(), !revision.hasPrefix("-") else {
            throw BenchError("--against needs a revision: nook-bench --against REV [--runs N] [GROUP]")
        }
        var runs = 2
        var group: String?
        while let argument = rest.popFirst() {
            if argument == "--runs" {
                guard let text = rest.popFirst(), let count = Int(text), (1...20).contains(count) else {
                    throw BenchError("--runs takes a count from 1 to 20")
                }
                runs = count
            } else if group == nil, !argument.hasPrefix("-") {
                group = argument
            } else {
                throw BenchError("nook-bench --against REV [--runs N] [GROUP]: unexpected \(argument)")
            }
        }
        return AgainstRevision(packageRoot: packageRoot, revision: revision, runs: runs, group: group)
    }

    func run() throws {
        guard let commit = try? git(["rev-parse", "--verify", "--quiet", revision + "^{commit}"]) else {
            throw BenchError("\(revision) is not a commit of the repository at \(packageRoot)")
        }
        if let group {
            // An older nook-bench runs every figure when it does not know a group's name: hours,
            // and not the figures asked for. Asked before anything is built.
            let main = (try? git(["show", commit + ":Sources/nook-bench/main.swift"])) ?? ""
            guard main.contains("\"\(group)\"") else { throw BenchError("\(revision)'s nook-bench has no group \(group)") }
            let ours = (try? String(contentsOfFile: packageRoot + "/Sources/nook-bench/main.swift", encoding: .utf8)) ?? ""
            guard ours.contains("\"\(group)\"") else { throw BenchError("this tree's nook-bench has no group \(group)") }
        }
        let old = try oldTree(commit: commit)
        print("against \(revision) (\(commit.prefix(12)), built in \(old)): building this tree alike")
        try build(packageRoot, log: scratch + "/build-new.log")
        let benches = (new: packageRoot + "/.build/release/nook-bench", old: old + "/.build/release/nook-bench")
        var newRuns: [[String: Double]] = [], oldRuns: [[String: Double]] = [], order: [String] = []
        for index in 0..<runs {
            // New first in even pairs, old first in odd ones: neither side always meets a warm cache.
            let sides = index.isMultiple(of: 2) ? [("new", benches.new), ("old", benches.old)] : [("old", benches.old), ("new", benches.new)]
            for (side, bench) in sides {
                let log = scratch + "/\(side)-\(index + 1).txt"
                print("run \(index + 1) of \(runs), \(side): \(log)")
                let figures = try benchRun(bench, log: log)
                if side == "new" {
                    newRuns.append(figures)
                    for name in Self.names(inOrderOf: log) where !order.contains(name) { order.append(name) }
                } else {
                    oldRuns.append(figures)
                }
            }
        }
        for name in order { report(name, new: newRuns.map { $0[name] }, old: oldRuns.map { $0[name] }) }
        for name in Set(oldRuns.flatMap(\.keys)).subtracting(order).sorted() {
            print("\(name): only in \(revision)'s runs")
        }
    }

    /// Prints the figure's ratio (median of the pairs' ratios, each pair measured one after the
    /// other) and its spread, then each side's runs.
    private func report(_ name: String, new: [Double?], old: [Double?]) {
        let pairs = zip(new, old).compactMap { pair -> Double? in
            guard let new = pair.0, let old = pair.1, old != 0, new.isFinite, old.isFinite else { return nil }
            return new / old
        }
        func listed(_ values: [Double?]) -> String { values.map { $0.map(Self.formatted) ?? "—" }.joined(separator: ", ") }
        guard !pairs.isEmpty else {
            print("\(name)_new_over_old: none (\(old.allSatisfy { $0 == nil } ? "not in \(revision)'s runs" : "no pair with both sides finite"))")
            print("  new \(listed(new)); old \(listed(old))")
            return
        }
        print("\(name)_new_over_old: \(Self.formatted(median(pairs)))")
        print("\(name)_new_over_old_range: \(Self.formatted(pairs.min()!)) \(Self.formatted(pairs.max()!))")
        print("  new \(listed(new)); old \(listed(old))")
    }

    /// REV's tree under the cache directory, built (once) as this tree is.
    private func oldTree(commit: String) throws -> String {
        let cache = (getenv("XDG_CACHE_HOME").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
            ?? (getenv("HOME").map { String(cString: $0) } ?? "/root") + "/.cache") + "/nook-bench/against"
        let tree = cache + "/" + commit
        let stamp = tree + "/.nook-bench-built"
        if FileManager.default.fileExists(atPath: stamp) { return tree }
        try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: tree + "/Package.swift") {
            print("against \(revision): unpacking \(commit.prefix(12)) into \(tree)")
            let archive = scratch + "/tree.tar"
            _ = try git(["archive", "--format=tar", "--output=" + archive, commit])
            try check(["/usr/bin/tar", "-x", "-f", archive, "-C", tree], log: scratch + "/tar.log", doing: "unpacking \(revision)")
        }
        print("against \(revision): building \(commit.prefix(12)) (release, Swift runtime static): \(tree)/build.log")
        try build(tree, log: tree + "/build.log")
        _ = FileManager.default.createFile(atPath: stamp, contents: Data(commit.utf8))
        return tree
    }

    private func build(_ root: String, log: String) throws {
        try check(["/usr/bin/env", "swift", "build", "-c", "release", "--static-swift-stdlib", "--package-path", root],
                  log: log, doing: "building \(root)")
    }

    /// One run of a side's nook-bench, its output kept in `log`; the figures it printed.
    private func benchRun(_ bench: String, log: String) throws -> [String: Double] {
        // Each side measures what it built: no build of its own, no binaries of another.
        let environment = ProcessInfo.processInfo.environment
            .filter { !["NOOK_BENCH_BINARIES", "NOOK_BENCH_NOOKD", "NOOK_BENCH_NO_BUILD"].contains($0.key) }
            .map { "\($0.key)=\($0.value)" } + ["NOOK_BENCH_NO_BUILD=1"]
        let status = try runLogged([bench] + (group.map { [$0] } ?? []), environment: environment, log: log)
        if status != 0 { print("note: \(bench) exited with status \(status) (its figures so far are kept)") }
        return Self.figures(in: (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    /// The `name: number` lines of a run (not `_range` lines, notes or indented details).
    static func figures(in output: String) -> [String: Double] {
        var figures: [String: Double] = [:]
        for line in output.split(separator: "\n") {
            guard let (name, value) = figure(in: line) else { continue }
            figures[name] = value
        }
        return figures
    }

    static func names(inOrderOf log: String) -> [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { figure(in: $0)?.name }
    }

    private static func figure(in line: Substring) -> (name: String, value: Double)? {
        guard let colon = line.firstIndex(of: ":"), !line.hasPrefix(" ") else { return nil }
        let name = line[..<colon]
        guard !name.isEmpty, !name.hasSuffix("_range"), name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }),
              let value = Double(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)) else { return nil }
        return (String(name), value)
    }

    static func formatted(_ value: Double) -> String {
        let magnitude = Swift.abs(value)
        let digits = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3
        return String(format: "%.\(digits)f", value)
    }

    private let scratch: String = {
        let path = "/tmp/nook-bench-against-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    private func git(_ arguments: [String]) throws -> String {
        let log = scratch + "/git.txt"
        let status = try runLogged(["/usr/bin/git", "-C", packageRoot] + arguments, environment: nil, log: log)
        let output = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0 else { throw BenchError("git \(arguments.joined(separator: " ")) failed (status \(status)): \(output)") }
        return output
    }

    private func check(_ arguments: [String], log: String, doing what: String) throws {
        let status = try runLogged(arguments, environment: nil, log: log)
        guard status == 0 else {
            let tail = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").suffix(15).joined(separator: "\n")
            throw BenchError("\(what) failed (status \(status)); the end of \(log):\n\(tail)")
        }
    }

    /// Runs `arguments` with its output and errors in `log`; its exit status.
    private func runLogged(_ arguments: [String], environment: [String]?, log: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        switch ChildSpawns.spawn(arguments, environment: environment, fileActions: &actions) {
        case .success(let pid):
            var status: Int32 = 0
            _ = try? System.wait(for: pid, status: &status)
            return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        case .failure(let error):
            throw BenchError("could not start \(arguments[0]): \(error)")
        }
    }
}
