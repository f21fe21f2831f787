import Foundation
import NookTestSupport
import NookTestTraits
import Testing

/// One shell example block of README.md, read from the file each time so that the README as
/// written is what a test runs.
struct ReadmeExample {
    /// The block's command lines, without `#` comments and blank lines.
    let lines: [String]

    /// The first ```sh block after the line that contains `lead` (the bold lead text before it).
    init(after lead: String, readme: String = Built.root + "/README.md") throws {
        let text = try String(contentsOfFile: readme, encoding: .utf8)
        let all = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = all.firstIndex(where: { $0.contains(lead) }) else {
            throw DaemonFailure("README.md has no line containing '\(lead)'")
        }
        guard let open = all[start...].firstIndex(where: { $0.hasPrefix("```sh") }),
              let close = all[(open + 1)...].firstIndex(where: { $0.hasPrefix("```") }) else {
            throw DaemonFailure("README.md has no ```sh block after '\(lead)'")
        }
        lines = all[(open + 1)..<close].map(ReadmeExample.withoutComment).filter { !$0.isEmpty }
    }

    /// The line with its `#` comment (a `#` at a word's start outside quotes) removed.
    static func withoutComment(_ line: String) -> String {
        var quote: Character?
        var previous: Character = " "
        for index in line.indices {
            let character = line[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "#", previous.isWhitespace {
                return String(line[..<index]).trimmingCharacters(in: .whitespaces)
            }
            previous = character
        }
        return line.trimmingCharacters(in: .whitespaces)
    }

    /// The line's words as the shell splits them (quotes removed); `;` and `&` are words of their own.
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character.isWhitespace || character == ";" || character == "&" {
                if inWord { words.append(current) }
                current = ""
                inWord = false
                if !character.isWhitespace { words.append(String(character)) }
            } else {
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }

    /// The word after `flag` on `line`.
    static func value(of flag: String, in line: String) -> String? {
        let words = words(line)
        return words.firstIndex(of: flag).flatMap { $0 + 1 < words.count ? words[$0 + 1] : nil }
    }

    /// The line that contains `needle`; fails the test naming the block when none does.
    func line(containing needle: String) throws -> String {
        guard let line = lines.first(where: { $0.contains(needle) }) else {
            throw DaemonFailure("no line of the README's block contains '\(needle)': \(lines)")
        }
        return line
    }
}

/// Runs README lines with `/bin/sh`, the programs found first in a directory of the test's own
/// (links to the built binaries, or wrappers that add the private broker's port), with the
/// socket and bus given by the environment.
struct ReadmeShell {
    let bin: String
    let environment: [String: String]

    init(scratch: Scratch, links: [String: String] = [:], wrappers: [String: String] = [:], environment extra: [String: String]) throws {
        bin = scratch.path + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        for (name, target) in links {
            try FileManager.default.createSymbolicLink(atPath: bin + "/" + name, withDestinationPath: target)
        }
        for (name, script) in wrappers {
            _ = FileManager.default.createFile(atPath: bin + "/" + name, contents: Data(("#!/bin/sh\n" + script + "\n").utf8))
            chmod(bin + "/" + name, 0o755)
        }
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["NOOK_SOCKET"] = nil
        self.environment = environment.merging(extra) { $1 }
    }

    private func process(_ line: String, output: FileHandle) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", line]
        process.environment = environment
        process.standardOutput = output
        process.standardError = output
        return process
    }

    /// Runs `line` to its end (killed after `timeout` seconds): its status and what it printed.
    func run(_ line: String, timeout: Double = 20) throws -> (status: Int32, output: String) {
        let pipe = Pipe.closedOnExec()
        let process = process(line, output: pipe.fileHandleForWriting)
        try process.runAlone()
        try? pipe.fileHandleForWriting.close()
        let killer = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + TestBounds.seconds(timeout), execute: killer)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitForExit()
        killer.cancel()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Starts `line` in the background, what it prints going to `outputPath`.
    func start(_ line: String, outputPath: String) throws -> Process {
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        guard let output = FileHandle(forWritingAtPath: outputPath) else { throw DaemonFailure("open(\(outputPath)) failed: errno \(errno)") }
        let process = process(line, output: output)
        try process.runAlone()
        return process
    }
}
