import ArgumentParser
@testable import nookctl
import Testing

/// `nookctl enqueue` reads plain command lines itself (it starts faster than through
/// ArgumentParser) and must read them exactly as ArgumentParser would.
@Suite("C2 nookctl enqueue's fast path reads command lines as ArgumentParser does")
struct EnqueueCommandLineTests {
    static let plain: [[String]] = [
        ["--title", "Build finished"],
        ["--title", "Build finished", "--subtitle", "Debug · 12.4s", "--icon", "hammer", "--tint", "green", "--key", "build"],
        ["--title=Backup complete", "--priority=high", "--dwell=0.5", "--json", "--socket", "/tmp/nook.sock"],
        ["--blocker", "--timeout", "30", "--title", "Doorbell", "--module", "door", "--wait"],
        ["--title", "Copying", "--progress", "0.25", "--expires-after", "60", "--id", "22222222-3333-4444-8555-666666666666"],
        ["--title", "Tinted", "--tint", "#FF8000", "--priority", "low"],
    ]

    @Test(arguments: plain)
    func c2_plainCommandLinesReadTheSameBothWays(arguments: [String]) throws {
        let fast = try #require(EnqueueCommandLine.parse(arguments[...]))
        // Parsed outside `#expect`: Swift 6.0's macro cannot hold a `try`.
        let parsed = try Enqueue.parse(arguments)
        #expect(fast.options == parsed.options)
        #expect(fast.activity.title == fast.options.title)
    }

    static let handedOver: [[String]] = [
        [], ["--help"], ["-h"], ["--subtitle", "no title"], ["--title"], ["--title", ""],
        ["--title", "x", "--tint", "chartreuse"], ["--title", "x", "--priority", "urgent"], ["--title", "x", "--title", "y"],
        ["--title", "-dash"], ["--title", "x", "--dwell", "soon"], ["--title", "x", "--dwell", "-1"], ["--title", "x", "--dwell", "0"],
        ["--title", "x", "--timeout", "3"], ["--title", "x", "--frobnicate"], ["--title", "x", "extra"], ["--title", "x", "--json=yes"],
        ["--title", "x", "--id", "not-a-uuid"], ["--title", "x", "--progress", "2"],
    ]

    @Test(arguments: handedOver)
    func c2_anythingUnusualIsLeftToArgumentParser(arguments: [String]) {
        #expect(EnqueueCommandLine.parse(arguments[...]) == nil)
    }

    @Test func c2_theFastPathKnowsEveryOptionEnqueueDeclares() {
        let help = Enqueue.helpMessage(columns: 400)
        let declared = Set(help.split(whereSeparator: { " ,\n[]<>".contains($0) }).filter { $0.hasPrefix("--") }.map(String.init))
        #expect(declared.contains("--title") && declared.contains("--expires-after"), "read the help: \(help)")
        let known = EnqueueCommandLine.flags + EnqueueCommandLine.valued
        #expect(declared.subtracting(["--help"]) == Set(known))
        #expect(Set(known).count == known.count, "an option listed twice: \(known)")
    }

    /// A value for every option the fast path reads: an option added without one fails here.
    static let sampleValues = ["--socket": "/tmp/nook.sock", "--title": "Build finished", "--subtitle": "Debug · 12.4s", "--icon": "hammer",
                               "--tint": "green", "--key": "build", "--priority": "high", "--dwell": "0.5", "--timeout": "30",
                               "--progress": "0.25", "--expires-after": "60", "--module": "door", "--id": "22222222-3333-4444-8555-666666666666",
                               "--sound": "beep:d=4,o=5,b=100:c", "--sound-repeat": "3"]

    /// Every option, alone beside the title and with every other one, in both spellings and in
    /// every order tried: the fast path reads each line as ArgumentParser does, or hands it over.
    @Test func c2_everyOptionReadsTheSameThroughEitherReader() throws {
        let valued = EnqueueCommandLine.valued, switches = EnqueueCommandLine.flags
        #expect(Set(Self.sampleValues.keys) == Set(valued), "a sample value for each valued option")
        func words(_ name: String, attached: Bool) -> [String] {
            guard let value = Self.sampleValues[name], valued.contains(name) else { return [name] }
            return attached ? ["\(name)=\(value)"] : [name, value]
        }
        var lines: [[String]] = []
        for name in valued + switches where name != "--title" {
            for attached in [false, true] {
                // --timeout needs --blocker; the fast path must still agree with ArgumentParser's refusal without it.
                lines.append(words("--title", attached: attached) + words(name, attached: attached))
                lines.append(words(name, attached: attached) + words("--title", attached: !attached) + ["--blocker"].filter { _ in name == "--timeout" })
            }
        }
        let all = (valued + switches).filter { $0 != "--title" }
        lines.append(["--title", "x"] + all.flatMap { words($0, attached: false) })
        lines.append(all.reversed().flatMap { words($0, attached: true) } + ["--title=x"])
        var read = 0
        for arguments in lines {
            let throughArgumentParser = try? Enqueue.parse(arguments)
            guard let fast = EnqueueCommandLine.parse(arguments[...]) else { continue }
            read += 1
            let parsed = try #require(throughArgumentParser, "the fast path read \(arguments), ArgumentParser refuses it")
            #expect(fast.options == parsed.options, "\(arguments)")
        }
        #expect(read >= lines.count - 4, "the fast path handed over \(lines.count - read) of \(lines.count) plain lines")
    }
}
