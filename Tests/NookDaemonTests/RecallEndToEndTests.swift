import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import Testing

/// U5's recall gesture through nookd on the mock display: a long press of open (the `press`
/// op with `holdMs`, as a button held that long) shows the newest history entries on the glass.
@Suite("U5 end to end: the recall gesture on the glass", .serialized, .ownThreads)
struct RecallEndToEndTests {
    static let nookRender = Built.directory + "/nook-render"

    func start(_ scratch: Scratch, frames: String? = nil, recallDwellMs: Int = 800) throws -> DaemonProcess {
        let config = scratch.file("nook.toml", "[debug]\npress_inputs = true\n[queue]\npoll_interval_ms = 50\n[history]\nrecall_dwell_ms = \(recallDwellMs)\n")
        return try DaemonProcess(scratch: scratch, arguments: ["--config", config] + (frames.map { ["--frames", $0] } ?? []))
    }

    func press(_ daemon: DaemonProcess, _ input: NookInputName, holdMs: Int? = nil) throws {
        #expect(try daemon.client().request(Request(id: .number(1), operation: .press(input, holdMs: holdMs)), as: PressAnswer.self).0.pressed == input)
    }

    func historyCount(_ daemon: DaemonProcess) throws -> Int {
        try daemon.client().request(Request(id: .number(1), operation: .history(HistoryQuery())), as: HistoryAnswer.self).0.total
    }

    func log(_ daemon: DaemonProcess) -> String { (try? String(contentsOfFile: daemon.logPath, encoding: .utf8)) ?? "" }

    func frameFiles(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix("frame-") }.sorted()
    }

    @Test func u5_aLongPressOnAnIdleDisplayShowsTheNewestEntriesOnTheGlassAndEndsByItself() throws {
        // nookd and nook-render inherit the same pinned fonts, so the same card is the same frame.
        TestFonts.pin()
        let scratch = Scratch()
        let frames = scratch.path + "/frames"
        // Each recalled card rests 3 s: the frame writer keeps only the newest frame while it
        // encodes, and on a loaded machine an encoding outlasted an 800 ms rest, so the card at
        // rest was never written (the slide-out replaced it).
        let daemon = try start(scratch, frames: frames, recallDwellMs: 3000)
        for title in ["Kettle boiled", "Door opened"] {
            try daemon.request(.enqueue(NookActivity(title: title, dwell: .milliseconds(200)), module: nil, wait: false))
        }
        try eventually("both cards in the history", timeout: 30) { try historyCount(daemon) == 2 }
        try eventually("the display idle", timeout: 30) { (try daemon.request(.status))["modules"]?.items.first?["current"] == .null }
        // Frames from before the press may still be written: they are home and the first cards,
        // never a recalled card, so they cannot pass for one.
        let before = Set(frameFiles(frames))

        try press(daemon, .open, holdMs: 900)
        try eventually("the recall over by itself", timeout: 30) { log(daemon).contains("recall: done") }
        #expect(log(daemon).contains("showing the 2 newest history entries"), "\(log(daemon))")
        #expect((try daemon.request(.status))["engaged"] == .bool(false), "a long press leaves the nook as it was")
        #expect(try historyCount(daemon) == 2, "a recall writes no history")

        // The recalled cards at rest, newest first, as nook-render draws them.
        var expected: [Data] = []
        for title in ["Door opened", "Kettle boiled"] {
            let path = scratch.path + "/\(title).png"
            let rendered = try run(Self.nookRender, ["--title", title, "--subtitle", "Recalled · just now", "-o", path])
            #expect(rendered.status == 0, "\(rendered)")
            expected.append(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        // Which recalled card each new frame is, if any (the writer may still be catching up).
        func shownCards() -> (shown: [Int], written: Int) {
            let written = frameFiles(frames).filter { !before.contains($0) }
            return (written.compactMap { name in
                (try? Data(contentsOf: URL(fileURLWithPath: frames + "/" + name))).flatMap { expected.firstIndex(of: $0) }
            }, written.count)
        }
        try eventually("both recalled cards in the frames written", timeout: 30) { Set(shownCards().shown) == [0, 1] }
        let (shown, written) = shownCards()
        #expect(shown.first == 0 && shown.contains(1), "each recalled card on the glass, newest first: \(shown) among \(written) frames")
        #expect(shown.firstIndex(of: 1).map { index in shown[..<index].allSatisfy { $0 == 0 } } == true, "\(shown)")
        #expect(daemon.stop().status == 0)
    }

    @Test func u5_aRealCardTakesPrecedenceDismissEndsARecallAndABusyDisplayKeepsTheShortPress() throws {
        let scratch = Scratch()
        // Each recalled card rests long enough that the blocker and the dismiss below find the
        // recall still running, however slowly a loaded machine gets to them.
        let daemon = try start(scratch, recallDwellMs: 30_000)
        try press(daemon, .open, holdMs: 900)
        try eventually("nothing recent said", timeout: 30) { log(daemon).contains("the history is empty") }
        try eventually("and over", timeout: 30) { log(daemon).contains("recall: done") }
        for title in ["one", "two", "three"] {
            try daemon.request(.enqueue(NookActivity(title: title, dwell: .milliseconds(100)), module: nil, wait: false))
        }
        try eventually("three in the history", timeout: 30) { try historyCount(daemon) == 3 }
        try eventually("the display idle", timeout: 30) { (try daemon.request(.status))["modules"]?.items.first?["current"] == .null }

        // A real card during a recall: the recall ends and the card is shown.
        try press(daemon, .open, holdMs: 900)
        var blocker = NookActivity(title: "Doorbell")
        blocker.presentation = .blocker(timeout: nil)
        try daemon.request(.enqueue(blocker, module: nil, wait: false))
        try eventually("the real card on the glass", timeout: 30) {
            (try daemon.request(.status))["modules"]?.items.first?["current"]?["title"] == .string("Doorbell")
        }
        #expect(log(daemon).contains("recall: ended (a new card arrived)"), "\(log(daemon))")

        // A long press with a card on the glass is the short press it began as: it opens the nook.
        try press(daemon, .open, holdMs: 900)
        #expect((try daemon.request(.status))["engaged"] == .bool(true))
        try press(daemon, .open)
        try press(daemon, .dismiss)
        try eventually("the blocker dismissed", timeout: 30) { (try daemon.request(.status))["modules"]?.items.first?["current"] == .null }
        try eventually("the blocker in the history", timeout: 30) { try historyCount(daemon) == 4 }

        // Dismiss during a recall ends it, and dismisses nothing else.
        try press(daemon, .open, holdMs: 900)
        try press(daemon, .dismiss)
        #expect(log(daemon).contains("recall: ended (dismiss pressed)"), "\(log(daemon))")
        // A short press is no long press.
        let recalls = log(daemon).components(separatedBy: "recall: long press").count
        try press(daemon, .open, holdMs: 300)
        #expect((try daemon.request(.status))["engaged"] == .bool(true))
        #expect(log(daemon).components(separatedBy: "recall: long press").count == recalls)
        #expect(try historyCount(daemon) == 4, "recalls wrote no history")
        #expect(daemon.stop().status == 0)
    }

    @Test func u5_dismissWithoutAnIdEndsARecallAsTheDismissInputDoes() throws {
        let scratch = Scratch()
        // Each recalled card rests long enough for the dismiss to find the recall running.
        let daemon = try start(scratch, recallDwellMs: 30_000)
        try daemon.request(.enqueue(NookActivity(title: "Kettle boiled", dwell: .milliseconds(100)), module: nil, wait: false))
        try eventually("the card in the history", timeout: 30) { try historyCount(daemon) == 1 }
        try eventually("the display idle", timeout: 30) { (try daemon.request(.status))["modules"]?.items.first?["current"] == .null }
        try press(daemon, .open, holdMs: 900)
        try eventually("the recalled card on the glass", timeout: 30) {
            (try daemon.request(.status))["modules"]?.items.first?["current"] == .null && log(daemon).contains("showing the 1 newest")
        }
        let dismissed = try nookctl(["dismiss"], socket: daemon.socket)
        #expect(dismissed.status == 0, "\(dismissed)")
        try eventually("the recall ended", timeout: 30) { log(daemon).contains("recall: ended (dismiss requested by") }
        #expect(try historyCount(daemon) == 1, "nothing else was dismissed")
        #expect(daemon.stop().status == 0)
    }
}
