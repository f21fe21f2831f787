import Foundation
import NookActivities
import NookDaemon
import NookProtocol
import NookTestTraits
import Testing

/// The man pages under docs/man say what the programs do: each test reads the list from the
/// code (the config reader, the built binaries' own help, the protocol's operation names), so
/// a key, command or flag added without its page, or a page naming one that is gone, fails.
@Suite("Man pages match the code", .ownThreads)
struct ManPageTests {
    static let root = BuiltProducts.repository
    static let binaries = BuiltProducts.directory
    static let pages = ["nookctl.1", "nook.toml.5", "nook-protocol.7", "nookd.8", "nook-notify.8", "nook-mqtt.8", "nook-lcdproc.8", "nook-http.8"]

    static func source(_ page: String) throws -> String {
        try String(contentsOfFile: root + "/docs/man/" + page, encoding: .utf8)
    }

    /// The page as a reader sees it: rendered by mandoc, bold and underline taken out.
    static func rendered(_ page: String) throws -> String {
        let result = try run("/usr/bin/mandoc", ["-T", "utf8", "-O", "width=400", root + "/docs/man/" + page])
        #expect(result.status == 0, "\(result.error)")
        return String(String.UnicodeScalarView(result.output.unicodeScalars.reduce(into: [Unicode.Scalar]()) { kept, scalar in
            if scalar == "\u{8}" { kept.removeLast() } else { kept.append(scalar) }
        }))
    }

    /// Whether `word` stands in `text` on its own: not part of a longer flag or name.
    static func contains(_ text: String, word: String) -> Bool {
        let partOfWord = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_."))
        var searched = text.startIndex..<text.endIndex
        while let found = text.range(of: word, range: searched) {
            let before = found.lowerBound == text.startIndex ? nil : text[text.index(before: found.lowerBound)].unicodeScalars.first
            var after = found.upperBound == text.endIndex ? nil : text[found.upperBound].unicodeScalars.first
            // A sentence's full stop is not part of the word.
            if after == ".", text.index(after: found.upperBound) == text.endIndex || text[text.index(after: found.upperBound)].isWhitespace { after = nil }
            if !(before.map(partOfWord.contains) ?? false), !(after.map(partOfWord.contains) ?? false) { return true }
            searched = found.upperBound..<text.endIndex
        }
        return false
    }

    @Test(arguments: pages)
    func everyPageRendersWithoutWarnings(page: String) throws {
        let path = Self.root + "/docs/man/" + page
        let mandoc = try run("/usr/bin/mandoc", ["-T", "lint", "-W", "warning", path])
        #expect(mandoc.status == 0 && mandoc.output.isEmpty && mandoc.error.isEmpty, "mandoc -T lint: \(mandoc.output)\(mandoc.error)")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") {
            let groff = try run("/usr/bin/groff", ["-ww", "-z", "-mandoc", path])
            #expect(groff.status == 0 && groff.error.isEmpty, "groff -ww -z: \(groff.error)")
        }
    }

    /// `systemctl help nookd` opens what a unit's `Documentation=` names: each man page is one of
    /// docs/man, each file one that Hardware/install puts under /usr/share/doc/nook.
    @Test func everyUnitsDocumentationIsAPageOrAnInstalledFile() throws {
        let units = ["nookd.service", "nook-notify.service", "nook-mqtt.service", "nook-lcdproc.service", "nook-http.service", "user/nook-notify.service"]
        for unit in units {
            let text = try String(contentsOfFile: Self.root + "/Hardware/systemd/" + unit, encoding: .utf8)
            let targets = text.split(separator: "\n").filter { $0.hasPrefix("Documentation=") }
                .flatMap { $0.dropFirst("Documentation=".count).split(separator: " ").map(String.init) }
            #expect(targets.contains { $0.hasPrefix("man:") }, "\(unit) names its man page")
            for target in targets {
                if target.hasPrefix("man:"), let open = target.firstIndex(of: "("), target.hasSuffix(")") {
                    let page = target[target.index(target.startIndex, offsetBy: 4)..<open] + "." + target[target.index(after: open)..<target.index(before: target.endIndex)]
                    #expect(Self.pages.contains(String(page)), "\(unit): \(target) is a page of docs/man")
                } else if target.hasPrefix("file:///usr/share/doc/nook/") {
                    let file = String(target.dropFirst("file:///usr/share/doc/nook/".count))
                    #expect(FileManager.default.fileExists(atPath: Self.root + "/" + file), "\(unit): \(target) is installed from the repository's \(file)")
                } else {
                    Issue.record("\(unit): \(target) is neither a man page nor a file Nook installs")
                }
            }
        }
    }

    @Test func everyPageInDocsManIsListedHere() throws {
        let found = try FileManager.default.contentsOfDirectory(atPath: Self.root + "/docs/man").filter { $0.range(of: #"\.[1-8]$"#, options: .regularExpression) != nil }
        #expect(Set(found) == Set(Self.pages), "the pages the tests check are the pages Hardware/install installs")
    }

    @Test func n1_everyConfigKeyNookdAcceptsIsInNookToml5AndNoOther() throws {
        // The one table of keys the reader is restricted to; `gpio.*` is written `gpio.NAME` on the page.
        let accepted = DaemonConfig.keys.keys.map { $0.replacingOccurrences(of: "*", with: "NAME") }
        #expect(accepted.count > 100, "the table was reached: \(accepted.count) keys")
        let page = try Self.rendered("nook.toml.5")
        for key in accepted {
            let named = Self.contains(page, word: key)  // bound first: a failure names the key, not the whole page
            #expect(named, "nook.toml(5) names \(key)")
        }
        // Each key the page describes (an item of a key list) is one nookd accepts.
        let source = try Self.source("nook.toml.5")
        let described = source.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix(".It Cm ") else { return nil }
            return line.dropFirst(".It Cm ".count).split(separator: " ").first.map(String.init)
        }
        #expect(described.count > 80)
        for key in described where key != "theme.palette.NAME" {
            let known = DaemonConfig.keys.contains(key)
            #expect(known, "nook.toml(5) describes \(key), which nookd does not accept")
        }
    }

    @Test func everyNookctlCommandAndFlagIsInNookctl1() throws {
        let dump = try run(Self.binaries + "/nookctl", ["--experimental-dump-help"])
        #expect(dump.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(dump.output.utf8)) as? [String: Any])
        let root = try #require(json["command"] as? [String: Any])
        var commands: [String] = [], flags: Set<String> = []
        func visit(_ command: [String: Any], path: [String]) {
            for argument in command["arguments"] as? [[String: Any]] ?? [] where argument["shouldDisplay"] as? Bool ?? true {
                for name in argument["names"] as? [[String: Any]] ?? [] {
                    guard let text = name["name"] as? String else { continue }
                    flags.insert((name["kind"] as? String == "long" ? "--" : "-") + text)
                }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                guard let name = sub["commandName"] as? String, name != "help" else { continue }
                commands.append((path + [name]).joined(separator: " "))
                visit(sub, path: path + [name])
            }
        }
        visit(root, path: [])
        #expect(commands.contains("enqueue") && commands.contains("icons") && commands.contains("history clear"), "\(commands)")
        #expect(flags.contains("--title") && flags.contains("--restart-dwell"), "\(flags.sorted())")
        let source = try Self.source("nookctl.1")
        for command in commands {
            #expect(source.contains(".It Cm \(command)\n") || source.contains(".It Cm \(command) "), "nookctl(1) has an item for nookctl \(command)")
        }
        let page = try Self.rendered("nookctl.1")
        for flag in flags {
            let named = Self.contains(page, word: flag)
            #expect(named, "nookctl(1) names \(flag)")
        }
    }

    /// nookd reads its flags by hand, the bridges by hand or through ArgumentParser: each
    /// prints them in `--help`, which is what is compared.
    @Test(arguments: [("nookd", "nookd.8"), ("nook-notify", "nook-notify.8"), ("nook-mqtt", "nook-mqtt.8"), ("nook-lcdproc", "nook-lcdproc.8"), ("nook-http", "nook-http.8")])
    func everyFlagOfTheProgramIsInItsPage(program: String, page: String) throws {
        let help = try run(Self.binaries + "/" + program, ["--help"])
        #expect(help.status == 0, "\(help.error)")
        let text = help.output + help.error
        let words = text.split { !($0.isLetter || $0.isNumber || $0 == "-") }
        let flags = Set(words.filter { $0.hasPrefix("--") && $0.count > 2 && $0.dropFirst(2).first?.isLetter == true }.map(String.init))
        #expect(flags.count >= 3 && flags.contains("--socket") && flags.contains("--help"), "\(program) --help: \(flags.sorted())")
        let rendered = try Self.rendered(page)
        for flag in flags {
            let named = Self.contains(rendered, word: flag)
            #expect(named, "\(page) names \(flag)")
        }
    }

    @Test func c1_everyOperationIsInNookProtocol7() throws {
        let source = try Self.source("nook-protocol.7")
        let items = Set(source.split(separator: "\n").filter { $0.hasPrefix(".It Cm ") }.flatMap { line in
            line.dropFirst(".It Cm ".count).split(separator: " ").filter { $0 != "," }.map(String.init)
        })
        for name in NookOperation.names {
            let described = items.contains(name)
            #expect(described, "nook-protocol(7) has an item for \(name)")
        }
        for name in items {
            let known = NookOperation.names.contains(name)
            #expect(known, "nook-protocol(7) describes \(name), which nookd does not know")
        }
    }

    @Test func r3_everyIconAndTintNameIsInNookctl1() throws {
        let page = try Self.rendered("nookctl.1")
        for name in NookIconNames.all {
            let named = Self.contains(page, word: name)
            #expect(named, "nookctl(1) lists the icon \(name)")
        }
        for tint in NookTint.Name.allCases {
            let named = Self.contains(page, word: tint.rawValue)
            #expect(named, "nookctl(1) lists the tint \(tint)")
        }
    }
}

/// Runs `executable` to its end: its exit status, standard output and standard error.
func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe.closedOnExec(), error = Pipe.closedOnExec()
    process.standardOutput = output
    process.standardError = error
    try process.runAlone()
    // Standard error is short here (a lint's lines, a usage message): read after standard output.
    let out = output.fileHandleForReading.readToEndOfFile()
    let err = error.fileHandleForReading.readToEndOfFile()
    _ = process.waitForExit()
    return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
}
