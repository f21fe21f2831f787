import ArgumentParser
import Foundation
import NookActivities
@testable import nookctl
import Testing

/// The examples in the docs and man pages are what the programs accept and draw (R3, C2): every
/// icon an example names is one the board has (or an image file), and every `nookctl` command
/// line of an example parses with nookctl's own ArgumentParser definitions, its validation too.
@Suite("R3, C2 the docs' examples run as written")
struct DocExamplesTests {
    static let root: String = {
        let file = #filePath
        return String(file[..<file.range(of: "/Tests/")!.lowerBound])
    }()

    /// docs/*.md, docs/man/* and README.md: path and text.
    static let documents: [(path: String, text: String)] = {
        let manager = FileManager.default
        let docs = ((try? manager.contentsOfDirectory(atPath: root + "/docs")) ?? []).filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        let man = ((try? manager.contentsOfDirectory(atPath: root + "/docs/man")) ?? []).map { "docs/man/" + $0 }
        return (docs + man + ["README.md"]).sorted().compactMap { path in
            (try? String(contentsOfFile: root + "/" + path, encoding: .utf8)).map { (path, $0) }
        }
    }()

    /// The lines of a document's examples: code blocks of Markdown, literal displays (`.Bd` …
    /// `.Ed`) and `.Dl` lines of a man page, its escapes read as a reader sees them.
    static func exampleLines(_ path: String, _ text: String) -> [(line: Int, text: String)] {
        var lines: [(Int, String)] = []
        var inside = false
        let isMan = path.hasPrefix("docs/man/")
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = String(raw)
            if isMan {
                line = line.replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\e", with: "\\").replacingOccurrences(of: "\\&", with: "")
                if line.hasPrefix(".Bd") { inside = true; continue }
                if line.hasPrefix(".Ed") { inside = false; continue }
                if line.hasPrefix(".Dl ") { lines.append((index + 1, String(line.dropFirst(4)))); continue }
            } else if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inside.toggle()
                continue
            }
            if inside { lines.append((index + 1, line)) }
        }
        return lines
    }

    /// The icon names an example line gives: `--icon X`, `"icon": "X"`, `icon=X`, `Icon: X` and
    /// `X-Icon: X` headers, `icon = "X"`.
    static func icons(in line: String) -> [String] {
        let patterns: [Regex<(Substring, Substring)>] = [
            /--icon[ =]["']?([^\s"'\\]+)/, /"icon"\s*:\s*"([^"]*)"/, /[?&\s]icon=([^\s&"']+)/, /(?i)\bicon:\s*["']?([^\s"'\\]+)/,
            /\bicon\s*=\s*"([^"]*)"/,
        ]
        return patterns.flatMap { line.matches(of: $0).map { String($0.1) } }
    }

    @Test func r3_everyIconAnExampleNamesIsOneTheBoardHas() {
        var checked = 0
        for (path, text) in Self.documents {
            for (number, line) in Self.exampleLines(path, text) {
                for icon in Self.icons(in: line) where !icon.hasPrefix("-") {
                    checked += 1
                    // An ntfy `Icon:` is a URL by ntfy's own definition (noted, not drawn).
                    if icon.hasPrefix("http://") || icon.hasPrefix("https://") { continue }
                    // An example of a name the board lacks shows the warning it gets, in the same page.
                    let drawn = NookIconNames.isKnown(icon) || NookIconNames.namesFile(icon) || text.contains("unknown icon '\(icon)'")
                    #expect(drawn, "\(path):\(number): the icon '\(icon)' is none of the board's ('nookctl icons' lists them)")
                }
            }
        }
        #expect(checked >= 10, "the examples' icons were found (\(checked))")
    }

    /// A shell line's words up to its first `;`, `|`, `&&`, `>` or comment, quotes removed; nil
    /// for a line that uses the shell beyond that (a variable or a command substitution).
    static func words(_ line: String) -> [String]? {
        var words: [String] = []
        var word = "", quote: Character?, hasWord = false
        var characters = line[...]
        while let character = characters.popFirst() {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
                continue
            }
            switch character {
            case "\"", "'": quote = character; hasWord = true
            case "\\": if let next = characters.popFirst() { word.append(next); hasWord = true }
            case " ", "\t":
                if hasWord { words.append(word) }
                (word, hasWord) = ("", false)
            case ";", "|", ">":
                characters = ""
            case "#" where !hasWord:
                characters = ""
            case "&" where characters.first == "&":
                characters = ""
            case "$", "`": return nil
            default: word.append(character); hasWord = true
            }
        }
        if hasWord { words.append(word) }
        return words
    }

    /// Every `nookctl …` line of the examples (after a `$ ` prompt too), backslash-continued
    /// lines joined.
    static func nookctlLines() -> [(place: String, words: [String])] {
        var found: [(String, [String])] = []
        for (path, text) in documents {
            let lines = exampleLines(path, text)
            var index = 0
            while index < lines.count {
                var (number, line) = lines[index]
                index += 1
                while line.hasSuffix("\\"), index < lines.count {
                    line = String(line.dropLast()) + " " + lines[index].text
                    index += 1
                }
                var command = line.trimmingCharacters(in: .whitespaces)
                if command.hasPrefix("$ ") { command = String(command.dropFirst(2)) }
                guard command.hasPrefix("nookctl ") else { continue }
                if let words = words(command) { found.append(("\(path):\(number)", Array(words.dropFirst()))) }
            }
        }
        return found
    }

    @Test func c2_everyNookctlCommandLineOfTheExamplesParses() {
        let lines = Self.nookctlLines()
        #expect(lines.count >= 20, "the examples' nookctl lines were found (\(lines.count))")
        for (place, arguments) in lines {
            do {
                _ = try Nookctl.parseAsRoot(arguments)
            } catch {
                // `--help` and `--generate-completion-script` end as a clean exit.
                let code = Nookctl.exitCode(for: error)
                #expect(code == .success, "\(place): nookctl \(arguments.joined(separator: " ")): \(Nookctl.fullMessage(for: error))")
            }
        }
    }

    @Test func c2_r3_theCheckFindsABadIconAndABadCommandLine() {
        #expect(Self.icons(in: #"curl -d '{"text":"21 C","icon":"cloud.sun"}' x"#) == ["cloud.sun"])
        #expect(Self.icons(in: "nookctl app set weather --text x --icon cloud.sun") == ["cloud.sun"])
        #expect(Self.icons(in: "curl -H 'X-Icon: door' -d x board/t") == ["door"])
        #expect(!NookIconNames.isKnown("cloud.sun"))
        #expect(Self.words(#"nookctl enqueue --title "Door open" --wait; echo $?"#) == ["nookctl", "enqueue", "--title", "Door open", "--wait"])
        #expect(Self.words("nookctl icons --icons-only | grep battery") == ["nookctl", "icons", "--icons-only"])
        #expect((try? Nookctl.parseAsRoot(["enqueue", "--title", "x", "--tint", "chartreuse"])) == nil)
        #expect((try? Nookctl.parseAsRoot(["app", "set", "w", "--text", "x", "--frobnicate"])) == nil)
    }
}
