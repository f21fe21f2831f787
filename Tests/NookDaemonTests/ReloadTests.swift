import Foundation
import NookActivities
@testable import NookDaemon
import NookProtocol
import NookTestTraits
import Testing

/// N1, R5, R6: a SIGHUP that turns the panel must never take nookd down, whatever the screen
/// is doing; the new rotation applies at a frame boundary and a card never mixes two sizes.
@Suite("N1 reloading the rotation mid-animation", .serialized, .ownThreads)
struct ReloadTests {
    @Test func n1_aSighupThatTurnsThePanelWhileACardSlidesInKeepsNookdRunning() throws {
        let scratch = Scratch()
        let path = scratch.file("nook.toml", "[display]\nrotation = 0\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", path])
        var card = NookActivity(title: "slide", dwell: .seconds(1))
        card.transition = .seconds(1)
        let waiter = try daemon.client()
        _ = try waiter.request(Request(id: .number(1), operation: .enqueue(card, module: nil, wait: true)))
        // The slide's own event, not a status poll that a loaded machine may take a second to run.
        _ = try readEvents(waiter) { $0["event"] == .string("animateIn") }
        _ = scratch.file("nook.toml", "[display]\nrotation = 90\n")
        kill(daemon.process.processIdentifier, SIGHUP)
        try eventually("the new rotation") { (try daemon.request(.status))["display"]?["rotation"] == .number(90) }
        var final: JSONValue?
        while final == nil, let line = try? waiter.readLine() {
            if case .event(_, let event)? = try? ResponseLine.decode(line), event["event"] == .string("hidden") { final = event }
        }
        #expect(daemon.process.isRunning, "nookd survived: \(daemon.log.suffix(2000))")
        #expect(final?["reason"] == .string("completed"), "the card was shown to its end")
        #expect(!daemon.log.contains("display: present"), "every frame had the panel's size")
        let snapshot = try daemon.request(.snapshot)
        #expect(snapshot["width"] == .number(1280) && snapshot["height"] == .number(400))
        #expect(daemon.stop().status == 0)
    }

    @Test func n1_aBurstOfSighupsAlternatingTheRotationWhileShortCardsRunKeepsNookdRunning() throws {
        let scratch = Scratch()
        let path = scratch.file("nook.toml", "[display]\nrotation = 0\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", path])
        let client = try daemon.client()
        var ids: [NookActivityID] = []
        for index in 0..<20 {
            var card = NookActivity(title: "short \(index)", dwell: .milliseconds(60))
            card.transition = .milliseconds(80)
            card.endDelay = .milliseconds(10)
            ids.append(card.id)
            _ = try client.request(Request(id: .number(Double(index)), operation: .enqueue(card, module: nil, wait: false)))
        }
        for round in 0..<60 where daemon.process.isRunning {
            _ = scratch.file("nook.toml", "[display]\nrotation = \(round % 2 == 0 ? 90 : 0)\n")
            kill(daemon.process.processIdentifier, SIGHUP)
            usleep(useconds_t(15_000 + (round % 5) * 7_000))
        }
        try eventually("every card shown", timeout: 20) {
            guard daemon.process.isRunning else { return true }
            let status = try daemon.request(.status)
            return status["modules"]?.items.first?["pending"] == .number(0) && status["modules"]?.items.first?["current"] == .null
        }
        #expect(daemon.process.isRunning, "nookd survived: \(daemon.log.suffix(2000))")
        #expect(!daemon.log.contains("display: present"), "every frame had the panel's size")
        // The file as it was at the last signal applies: reloads run one after another (the
        // ones asked for meanwhile folded into one), never an older file after a newer.
        try eventually("the last file's rotation") { (try daemon.request(.status))["display"]?["rotation"] == .number(0) }
        #expect(daemon.stop().status == 0)
    }

    @Test func n1_sighupsDuringAReloadFoldIntoOneMoreReloadAfterIt() {
        let requests = ReloadRequests()
        #expect(requests.begin(), "the first reloads")
        #expect(!requests.begin() && !requests.begin(), "those during it do not run beside it")
        #expect(requests.end(), "it runs once more for them")
        #expect(!requests.end(), "and then stops")
        #expect(requests.begin(), "a later signal reloads again")
        #expect(!requests.end())
    }
}
