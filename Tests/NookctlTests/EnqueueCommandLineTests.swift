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
        #expect(fast.options == (try Enqueue.parse(arguments)).options)
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
}
