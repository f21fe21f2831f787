import Foundation
import NookActivities
import NookDisplay
import NookProtocol
import NookRender
import NookTestSupport
import NookTestTraits
import Testing

/// R3, C3, C4: an icon path from a client is checked when it is enqueued. A FIFO once hung the
/// screen for good (and with it `status` and every later card); devices, huge files, files
/// outside the icon directories and files that are not PNGs are refused naming `activity.icon`.
@Suite("R3 icon files from clients", .serialized, .ownThreads)
struct IconFileTests {
    @Test func r3_aFIFODeviceOrHugeFileAsIconIsRefusedAtEnqueueAndTheDisplayKeepsWorking() throws {
        let scratch = Scratch()
        let icons = scratch.path + "/icons"
        try FileManager.default.createDirectory(atPath: icons, withIntermediateDirectories: true)
        let config = scratch.file("nook.toml", "[daemon]\nicon_directories = [\"\(icons)\", \"/dev\"]\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])

        let fifo = icons + "/f"
        #expect(mkfifo(fifo, 0o644) == 0)
        let sparse = icons + "/sparse.png"
        _ = FileManager.default.createFile(atPath: sparse, contents: nil)
        #expect(truncate(sparse, 1 << 40) == 0, "a 1 TiB sparse file")
        _ = scratch.file("icons/text.png", "not a picture")
        let outside = scratch.path + "/outside.png"
        try PNG.write(Frame(width: 8, height: 8, fill: RGB(hex: 0xFF0000).pixel), to: outside)
        symlink(outside, icons + "/escape.png")
        try PNG.write(Frame(width: 8, height: 8, fill: RGB(hex: 0x00FF00).pixel), to: icons + "/ok.png")

        let refused = [
            (fifo, "is a FIFO, not a regular file"), ("/dev/zero", "is a character device, not a regular file"),
            (icons, "is a directory, not a regular file"), (sparse, "bytes; an icon file may have at most 1048576"),
            (icons + "/text.png", "is not a PNG file"), (outside, "is not an icon file in an icon directory nookd may read"),
            (icons + "/escape.png", "is not an icon file in an icon directory nookd may read"), ("missing.png", "no icon file named missing.png"),
        ]
        for (icon, problem) in refused {
            let result = try nookctlWithin(10, ["enqueue", "--title", "x", "--icon", icon], socket: daemon.socket)
            #expect(result.status == 1, "\(icon): \(result)")
            #expect(result.error.contains("activity.icon: ") && result.error.contains(problem), "\(icon): \(result.error)")
        }
        let status = try daemon.request(.status)
        #expect(status["modules"]?.items.first?["pending"] == .number(0), "nothing refused was queued")

        // A name without a slash is found in the icon directories; the card is drawn.
        let shown = try nookctlWithin(15, ["enqueue", "--title", "ok", "--icon", "ok.png", "--dwell", "0.2", "--wait"], socket: daemon.socket)
        #expect(shown.status == 0, "\(shown)")
        #expect(!daemon.log.contains("drawing the generic glyph"), "the image was drawn")
        #expect(daemon.stop().status == 0)
    }

    @Test func r3_anIconReplacedByAFIFOAfterItWasAcceptedDoesNotStallTheScreen() throws {
        let scratch = Scratch()
        let icons = scratch.path + "/icons"
        try FileManager.default.createDirectory(atPath: icons, withIntermediateDirectories: true)
        let config = scratch.file("nook.toml", "[daemon]\nicon_directories = [\"\(icons)\"]\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        let path = icons + "/swap.png"
        try PNG.write(Frame(width: 8, height: 8), to: path)
        try daemon.request(.suspend(module: nil))
        let accepted = try nookctlWithin(10, ["enqueue", "--title", "swapped", "--icon", path, "--dwell", "0.2"], socket: daemon.socket)
        #expect(accepted.status == 0, "\(accepted)")
        unlink(path)
        #expect(mkfifo(path, 0o644) == 0)
        try daemon.request(.resume(module: nil))
        let next = try nookctlWithin(15, ["enqueue", "--title", "after", "--dwell", "0.2", "--wait"], socket: daemon.socket)
        #expect(next.status == 0, "the next card is drawn: \(next)")
        #expect(daemon.log.contains("is a FIFO, not a regular file; drawing the generic glyph"))
        _ = try daemon.request(.status)
        #expect(daemon.stop().status == 0)
    }

    /// The same icon path sent again after the file changed shows the new picture: by an update
    /// that changes nothing else (the queue sees no change, so no `updated` event comes), and by
    /// `nookctl update` with another field, both through a real nookd on the mock display.
    @Test func r3_u1_theSameIconPathSentAgainAfterTheFileChangedShowsTheNewPicture() throws {
        let scratch = Scratch()
        let icons = scratch.path + "/icons"
        try FileManager.default.createDirectory(atPath: icons, withIntermediateDirectories: true)
        let config = scratch.file("nook.toml", LiveViewTests.quietHome + "[daemon]\nicon_directories = [\"\(icons)\"]\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        let path = icons + "/a.png"
        let (red, blue, green) = (RGB(hex: 0xFF0000).pixel, RGB(hex: 0x0000FF).pixel, RGB(hex: 0x00FF00).pixel)
        try PNG.write(Frame(width: 64, height: 64, fill: red), to: path)
        let card = NookActivity(title: "Washer", systemImage: path, tint: .named(.gray), presentation: .blocker(timeout: nil))
        try LiveViewTests().onGlass(daemon, card)
        let client = try daemon.client()
        func glass() throws -> [UInt32: Int] {
            let frame = try LiveViewTests.decode(LiveViewTests.frame(client).png, in: scratch)
            return frame.pixels.reduce(into: [:]) { $0[$1, default: 0] += 1 }
        }
        try eventually("the red picture on the glass") { try glass()[red, default: 0] > 1000 }

        // Written again at the same path; the same path sent again, nothing else changed.
        try PNG.write(Frame(width: 64, height: 64, fill: blue), to: path)
        let same = try daemon.request(.update(.id(card.id), changes: ActivityChanges(members: [("icon", .string(path))]), restartDwell: false))
        #expect(same["updated"]?.items.first?["fields"]?.items.isEmpty == true, "the queue saw no change: \(same)")
        try eventually("the blue picture on the glass") { try glass()[blue, default: 0] > 1000 }
        #expect(try glass()[red, default: 0] == 0)

        // Changed again, then an update of another field: drawn with the file as it is now.
        try PNG.write(Frame(width: 64, height: 64, fill: green), to: path)
        #expect(try nookctl(["update", card.id.description, "--title", "Washer done"], socket: daemon.socket).status == 0)
        try eventually("the green picture on the glass") { try glass()[green, default: 0] > 1000 }
        #expect(daemon.stop().status == 0)
    }

    /// An activity restored from the journal was drawn with its icon file unchecked: one the
    /// icon directories no longer allow (config changed meanwhile) must lose its icon.
    @Test func r3_anActivityRestoredFromTheJournalHasItsIconCheckedAgain() throws {
        let scratch = Scratch()
        let icons = scratch.path + "/icons"
        try FileManager.default.createDirectory(atPath: icons, withIntermediateDirectories: true)
        let icon = icons + "/door.png"
        try PNG.write(Frame(width: 8, height: 8, fill: RGB(hex: 0x00FF00).pixel), to: icon)
        let journal = ["--journal", scratch.path + "/journal"]
        let allowing = scratch.file("allowing.toml", "[daemon]\nicon_directories = [\"\(icons)\"]\n")
        var daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", allowing] + journal)
        var card = NookActivity(title: "Door open", systemImage: icon)
        card.presentation = .blocker(timeout: nil)
        try daemon.request(.enqueue(card, module: nil, wait: false))
        #expect(daemon.stop().status == 0)

        let elsewhere = scratch.file("elsewhere.toml", "[daemon]\nicon_directories = [\"/usr/share/nook/icons\"]\n")
        daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", elsewhere] + journal)
        try eventually("the restored card") { try daemon.activities().first?.current?.id == card.id }
        #expect(try daemon.activities().first?.current?.systemImage == nil)
        #expect(daemon.log.contains("journal: \"Door open\" is restored without its icon"), "\(daemon.log)")
        #expect(daemon.stop().status == 0)
    }

    @Test func r3_anUnknownIconNameIsShownAndTheSenderIsWarnedOnStandardError() throws {
        let daemon = try DaemonProcess()
        let typo = try nookctlWithin(10, ["enqueue", "--title", "x", "--icon", "hamer", "--dwell", "0.2"], socket: daemon.socket)
        #expect(typo.status == 0, "accepted: \(typo)")
        let id = typo.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(NookActivityID(id) != nil, "stdout holds only the id: \(typo.output)")
        #expect(typo.error == "nookctl: warning: unknown icon 'hamer' (did you mean 'hammer'?): the card shows the generic glyph; 'nookctl icons' lists the known names\n",
                "\(typo.error)")

        // The same through the answer of enqueue --wait, of update, and in --json's result.
        let waited = try nookctlWithin(15, ["enqueue", "--title", "w", "--icon", "belll", "--dwell", "0.2", "--wait"], socket: daemon.socket)
        #expect(waited.status == 0 && waited.error.contains("unknown icon 'belll' (did you mean 'bell'?)"), "\(waited)")
        let held = try nookctlWithin(10, ["enqueue", "--title", "h", "--icon", "bell", "--blocker"], socket: daemon.socket)
        #expect(held.status == 0 && held.error.isEmpty, "a known name: no warning: \(held)")
        let heldID = held.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let updated = try nookctlWithin(10, ["update", heldID, "--icon", "no-such-icon"], socket: daemon.socket)
        #expect(updated.status == 0 && updated.error.contains("nookctl: warning: unknown icon 'no-such-icon'"), "\(updated)")
        let fine = try nookctlWithin(10, ["update", heldID, "--icon", "checkmark"], socket: daemon.socket)
        #expect(fine.status == 0 && fine.error.isEmpty, "\(fine)")
        let json = try nookctlWithin(10, ["update", heldID, "--icon", "hamer", "--json"], socket: daemon.socket)
        #expect(json.status == 0 && json.output.contains("\"warnings\":[\"unknown icon 'hamer'"), "\(json)")
        #expect(json.error.contains("nookctl: warning: unknown icon 'hamer'"), "\(json)")
        _ = try nookctlWithin(10, ["dismiss", heldID], socket: daemon.socket)

        // Older clients read the answer as before: the member is additive.
        let answer = try daemon.request(.enqueue(NookActivity(title: "raw", systemImage: "hamer"), module: nil, wait: false))
        #expect(answer["warnings"]?.items.count == 1)
        #expect(try EnqueueAnswer(json: answer).warnings.count == 1)
        #expect(daemon.stop().status == 0)
        #expect(!daemon.log.contains("Sources/"), "no message points a user at a source file")
    }

    @Test func r3_nookctlIconsListsTheNamesNookdDrawsAndTheTints() throws {
        let plain = try run(Built.nookctl, ["icons", "--icons-only"])
        #expect(plain.status == 0 && plain.output == NookIconNames.all.joined(separator: "\n") + "\n", "\(plain)")
        let tints = try run(Built.nookctl, ["icons", "--tints-only"])
        #expect(tints.output.split(separator: "\n").map(String.init) == ["accent"] + NookTint.Name.allCases.map(\.rawValue))
        let json = try run(Built.nookctl, ["--json", "icons"])
        let listed = try JSONValue.parse(Array(json.output.utf8))
        #expect(listed["icons"]?.items.compactMap(\.text) == NookIconNames.all)
        #expect(listed["tints"]?.items.count == NookTint.Name.allCases.count + 1)
        let both = try run(Built.nookctl, ["icons"])
        #expect(both.status == 0 && both.output.contains("  hammer\n") && both.output.contains("tints:\n  accent\n"))
        #expect(try run(Built.nookctl, ["icons", "--icons-only", "--tints-only"]).status == 64)
    }

    @Test func n1_iconDirectoriesMustBeAbsolute() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[daemon]\nicon_directories = [\"icons\"]\n")
        let daemon = try DaemonProcess.exited(scratch: scratch, arguments: ["--config", config])
        #expect(daemon.log.contains("nook.toml:2: daemon.icon_directories: must list absolute paths, got \"icons\""))
    }
}

/// nookctl with a bound: a hang fails the test instead of stalling the suite.
func nookctlWithin(_ seconds: Double, _ arguments: [String], socket: String) throws -> (status: Int32, output: String, error: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Built.nookctl)
    process.arguments = arguments + ["--socket", socket]
    let scratchOut = "/tmp/nookctl-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    _ = FileManager.default.createFile(atPath: scratchOut + ".out", contents: nil)
    _ = FileManager.default.createFile(atPath: scratchOut + ".err", contents: nil)
    defer { unlink(scratchOut + ".out"); unlink(scratchOut + ".err") }
    process.standardOutput = FileHandle(forWritingAtPath: scratchOut + ".out")
    process.standardError = FileHandle(forWritingAtPath: scratchOut + ".err")
    try process.runAlone()
    let deadline = Date().addingTimeInterval(TestBounds.seconds(seconds))
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning {
        process.terminate()
        process.waitForExit()
        throw DaemonFailure("nookctl \(arguments.joined(separator: " ")) did not finish within \(TestBounds.seconds(seconds)) s")
    }
    let output = (try? String(contentsOfFile: scratchOut + ".out", encoding: .utf8)) ?? ""
    let error = (try? String(contentsOfFile: scratchOut + ".err", encoding: .utf8)) ?? ""
    return (process.terminationStatus, output, error)
}
