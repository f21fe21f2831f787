import Foundation
import NookActivities
import NookDisplay
import NookProtocol
import NookRender
import NookTestSupport
import NookTestTraits
import Testing

/// V1 through a real nookd on the mock display: the frame `frame` hands out is, pixel for
/// pixel, the one the mock presented (its `latest.png`), upright as drawn on a turned panel;
/// `after` waits for the next change and answers with it; a viewer that never reads holds up
/// neither the display nor anyone else.
@Suite("V1 the live view through nookd's socket", .serialized, .ownThreads)
struct LiveViewTests {
    /// No clock on the home screen: nothing changes the glass but what a test does.
    static let quietHome = "[home]\ncontent = \"blank\"\n"

    static func decode(_ png: [UInt8], in scratch: Scratch, name: String = "live.png") throws -> Frame {
        let path = scratch.path + "/" + name
        try Data(png).write(to: URL(fileURLWithPath: path))
        return try PNG.read(from: path)
    }

    static func frame(_ client: NookClient, after: Int? = nil) throws -> FrameAnswer {
        try FrameAnswer(json: try client.request(Request(id: .number(1), operation: .frame(after: after))))
    }

    static func blocker(_ title: String) -> NookActivity {
        NookActivity(title: title, subtitle: "live view", systemImage: "bell", tint: .named(.orange), presentation: .blocker(timeout: nil))
    }

    func onGlass(_ daemon: DaemonProcess, _ activity: NookActivity) throws {
        try daemon.request(.enqueue(activity, module: nil, wait: false))
        try eventually("the card on the glass") { (try daemon.request(.status))["modules"]?.items.first?["phase"] == .string("presented") }
    }

    /// The live frame turned to the panel equals the mock's newest frame file.
    func checkPixelExact(rotation: Rotation) throws {
        let scratch = Scratch()
        let frames = scratch.path + "/frames"
        let config = scratch.file("nook.toml", Self.quietHome + "[display]\nrotation = \(rotation.degrees)\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config, "--frames", frames])
        try onGlass(daemon, Self.blocker("Pixel for pixel"))
        let client = try daemon.client()
        var live: Frame?, mock: Frame?
        // The mock's writer may still be one frame behind the glass: look until they agree.
        try eventually("the live frame to equal the mock's latest.png") {
            let answer = try Self.frame(client)
            let frame = try Self.decode(answer.png, in: scratch)
            #expect(frame.width == answer.width && frame.height == answer.height)
            live = frame
            mock = try? PNG.read(from: frames + "/latest.png")
            return mock != nil && frame.rotated(rotation) == mock
        }
        let upright = PixelSize(width: 1280, height: 400).rotated(rotation.inverse)
        #expect(live?.width == upright.width && live?.height == upright.height, "upright as drawn: \(upright)")
        let colours = Set(live?.pixels ?? []).count
        #expect(colours > 2, "the card is on it, not a blank frame")
        #expect(daemon.stop().status == 0)
    }

    @Test func v1_theFrameHandedOutIsPixelForPixelTheFrameTheMockPresented() throws {
        try checkPixelExact(rotation: .none)
    }

    @Test func v1_onATurnedPanelTheFrameIsUprightAsDrawnAndTurnedItIsTheMocksFrame() throws {
        try checkPixelExact(rotation: .quarter)
    }

    @Test func v1_afterWaitsForTheNextFrameAndAnswersWithIt() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", Self.quietHome)
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        let now = try Self.frame(try daemon.client())
        let waiter = try daemon.client(timeout: .seconds(20))
        try waiter.send(Request(id: .number(2), operation: .frame(after: now.generation)).encoded())
        // Nothing changes the glass yet: no answer.
        waiter.readTimeout = .milliseconds(300)
        #expect(throws: ClientError.self, "answered before the glass changed") { _ = try waiter.readLine() }
        waiter.readTimeout = TestBounds.duration(.seconds(20))
        try daemon.request(.enqueue(Self.blocker("The next frame"), module: nil, wait: false))
        let line = try #require(try waiter.readLine())
        guard case .success(_, let result) = try ResponseLine.decode(line) else { Issue.record("failed: \(String(decoding: line, as: UTF8.self))"); return }
        let next = try FrameAnswer(json: result)
        #expect(next.generation > now.generation)
        let changed = try Self.decode(next.png, in: scratch) != Self.decode(now.png, in: scratch, name: "before.png")
        #expect(changed, "the glass changed")
        // A number from another nookd (larger than any frame here) is answered at once.
        let later = try Self.frame(try daemon.client(), after: next.generation + 1_000_000)
        #expect(later.generation >= next.generation)
        #expect(daemon.stop().status == 0)
    }

    @Test func v1_aViewerThatNeverReadsHoldsUpNeitherTheDisplayNorOtherViewers() throws {
        let scratch = Scratch()
        let frames = scratch.path + "/frames"
        let config = scratch.file("nook.toml", Self.quietHome)
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config, "--frames", frames])
        let start = try Self.frame(try daemon.client())
        // A viewer asks for frame after frame and reads none of them (SIGSTOPped, or a bug).
        let stuck = try daemon.client()
        var burst = ""
        for index in 0..<300 { burst += Request(id: .number(Double(index)), operation: .frame(after: nil)).encoded() }
        try stuck.send(burst)
        // Cards still come and go through their whole lifecycle, frame by frame.
        for index in 0..<3 {
            var card = NookActivity(title: "Card \(index)", dwell: .milliseconds(200))
            card.transition = .milliseconds(150)
            let waiting = try daemon.client(timeout: .seconds(30))
            _ = try waiting.request(Request(id: .number(1), operation: .enqueue(card, module: nil, wait: true)))
            let events = try readEvents(waiting) { $0["event"] == .string("hidden") }
            #expect(events.last?["reason"] == .string("completed"))
        }
        // Another viewer sees the newer frames.
        let after = try Self.frame(try daemon.client())
        #expect(after.generation > start.generation + 6, "slides in and out were presented: \(start.generation) then \(after.generation)")
        #expect(daemon.process.isRunning)
        #expect(daemon.stop().status == 0)
    }

    @Test func v1_oneUserCannotTakeEveryWaitingPlaceForTheNextFrame() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", Self.quietHome)
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        let now = try Self.frame(try daemon.client())
        // One more waiting request than a uid's share, each on a connection of its own (one
        // connection's requests are answered in turn).
        var waiters: [NookClient] = []
        for index in 0...16 {
            let waiter = try daemon.client(timeout: .seconds(30))
            try waiter.send(Request(id: .number(Double(index)), operation: .frame(after: now.generation)).encoded())
            waiters.append(waiter)
        }
        // The glass does not change: the only answer that comes is the refusal of the one past the share.
        var refused: Int?
        let deadline = Date().addingTimeInterval(TestBounds.seconds(20))
        while refused == nil, Date() < deadline {
            for (index, waiter) in waiters.enumerated() {
                waiter.readTimeout = .milliseconds(50)
                guard let line = try? waiter.readLine() else { continue }
                guard case .failure(_, let error) = try ResponseLine.decode(line) else {
                    Issue.record("answered with a frame before the glass changed: \(String(decoding: line, as: UTF8.self))")
                    continue
                }
                #expect(error.code == .unavailable && error.field == "after", "\(error)")
                #expect(error.message.contains("share") && error.message.contains("uid \(getuid())"), "\(error.message)")
                refused = index
            }
        }
        let refusedIndex = try #require(refused, "no request past the uid's share was refused")
        // The others still wait, and get the next frame.
        try daemon.request(.enqueue(Self.blocker("Shared fairly"), module: nil, wait: false))
        for (index, waiter) in waiters.enumerated() where index != refusedIndex {
            waiter.readTimeout = TestBounds.duration(.seconds(20))
            let line = try #require(try waiter.readLine())
            guard case .success(_, let result) = try ResponseLine.decode(line) else { Issue.record("waiter \(index) failed: \(String(decoding: line, as: UTF8.self))"); continue }
            #expect(try FrameAnswer(json: result).generation > now.generation)
        }
        #expect(daemon.stop().status == 0)
    }

    @Test func v1_nookctlScreenshotWritesTheFrameAtomicallyAndRefusesAFIFO() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", Self.quietHome)
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        try onGlass(daemon, Self.blocker("Screenshot"))
        let output = scratch.path + "/shot.png"
        let shot = try nookctl(["screenshot", "-o", output], socket: daemon.socket)
        #expect(shot.status == 0, "\(shot.error)")
        #expect(shot.output.contains("1280x400"), "\(shot.output)")
        let live = try Self.frame(try daemon.client())
        let same = try PNG.read(from: output) == Self.decode(live.png, in: scratch)
        #expect(same, "the file is the frame nookd hands out")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).allSatisfy { !$0.contains(".part") }, "no file left beside it")

        // --json saves the file too; a name as long as a name may be is written.
        let json = scratch.path + "/json.png"
        let saved = try nookctl(["screenshot", "--json", "-o", json], socket: daemon.socket)
        #expect(saved.status == 0 && FileManager.default.fileExists(atPath: json), "\(saved.error)")
        let long = scratch.path + "/" + String(repeating: "a", count: 251) + ".png"
        let longShot = try nookctl(["screenshot", "-o", long], socket: daemon.socket)
        #expect(longShot.status == 0 && FileManager.default.fileExists(atPath: long), "\(longShot.error)")

        let fifo = scratch.path + "/fifo.png"
        #expect(mkfifo(fifo, 0o644) == 0)
        let refused = try nookctl(["screenshot", "-o", fifo], socket: daemon.socket)
        #expect(refused.status == 1 && refused.error.contains("not a regular file"), "\(refused)")
        var info = stat()
        #expect(stat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the FIFO is left as it was")

        // --wait-change: written once the glass shows a newer frame.
        let waited = scratch.path + "/waited.png"
        let process = try startNookctl(["screenshot", "-o", waited, "--wait-change"], socket: daemon.socket)
        try eventually("nookctl waiting for a frame") { (try daemon.request(.status))["connections"] == .number(2) }
        #expect(!FileManager.default.fileExists(atPath: waited), "nothing written before the glass changed")
        // Cards until nookctl has its frame (its first request may come after the first card).
        let deadline = Date().addingTimeInterval(TestBounds.seconds(30))
        var nudges = 0
        while process.isRunning, Date() < deadline {
            _ = try? daemon.request(.dismiss(nil))
            _ = try? daemon.request(.enqueue(NookActivity(coalescingKey: "nudge", title: "Nudge \(nudges)", dwell: .milliseconds(300)), module: nil, wait: false))
            nudges += 1
            usleep(200_000)
        }
        if process.isRunning {
            Issue.record("nookctl screenshot --wait-change still waits after \(nudges) changes of the glass")
            process.terminate()
        }
        process.waitForExit()
        #expect(process.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: waited))
        #expect(daemon.stop().status == 0)
    }
}
