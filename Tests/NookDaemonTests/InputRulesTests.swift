import Foundation
import NookActivities
@testable import NookDaemon
import NookInput
import NookProtocol
import NookTestTraits
import Testing

/// One rule for a press, whichever way it comes in (I1, T2, E3, E8, U5): the same press made
/// through the socket's `press` (a real nookd) and through the touch panel (the touch service
/// on real queues and a real recall) does the same thing, and the `inputs` stream nook-lcdproc
/// reads says the same about it.
///
/// The socket halves block on a nookd, so the suite runs on threads of its own; the touch halves
/// run detached, on the cooperative pool with the queues they step, as TouchTests do: stepped
/// from another thread, the harness's bounded steps could all pass before a loaded pool ran the
/// queue once.
@Suite("I1 T2 E3 U5 a press does the same whichever way it comes in", .serialized, .ownThreads)
struct InputRulesTests {
    /// What a press of open did to a card with an action on the glass.
    struct OpenOnAction: Equatable {
        var invoked: Bool
        /// What the `inputs` stream said: nook-lcdproc makes no key of a taken press.
        var taken: Bool
    }

    /// What a long press of open on an idle display, then a press of dismiss, did.
    struct RecallThenDismiss: Equatable {
        var recallingAfterLongPress: Bool
        var recallingAfterDismiss: Bool
    }

    func start() throws -> DaemonProcess {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[debug]\npress_inputs = true\n[queue]\npoll_interval_ms = 50\n")
        return try DaemonProcess(scratch: scratch, arguments: ["--config", config])
    }

    func log(_ daemon: DaemonProcess) -> String { (try? String(contentsOfFile: daemon.logPath, encoding: .utf8)) ?? "" }

    /// Through the socket: a watcher sees the card's events, another client the `inputs` stream.
    func openOnActionBySocket() throws -> OpenOnAction {
        let daemon = try start()
        defer { #expect(daemon.stop().status == 0) }
        let card = NookActivity(title: "Mail", presentation: .blocker(timeout: nil), hasAction: true)
        try daemon.request(.enqueue(card, module: nil, wait: false))
        try eventually("the card on the glass") {
            (try daemon.request(.status))["modules"]?.items.first?["phase"] == .string("presented")
        }
        let watcher = try daemon.client()
        _ = try watcher.request(Request(id: .number(1), operation: .watch), as: WatchAnswer.self)
        let presses = try daemon.client()
        _ = try presses.request(Request(id: .number(2), operation: .inputs), as: InputsAnswer.self)
        _ = try daemon.client().request(Request(id: .number(3), operation: .press(.open)), as: PressAnswer.self)
        var press: InputMessage?
        while press == nil, let line = try presses.readLine() {
            if case .event(_, let event) = try ResponseLine.decode(line) { press = InputMessage(json: event) }
        }
        var invoked = false
        while !invoked, let line = try watcher.readLine() {
            guard case .event(_, let event) = try ResponseLine.decode(line) else { continue }
            invoked = event["id"]?.text == card.id.description && event["event"] == .string("invoked")
        }
        return OpenOnAction(invoked: invoked, taken: press?.taken ?? false)
    }

    func openOnActionByTouch() async throws -> OpenOnAction {
        let nook = try await TouchHarness()
        let presses = nook.presses.subscribe()
        let card = NookActivity(title: "Mail", presentation: .blocker(timeout: nil), hasAction: true)
        await nook.onGlass(card)
        let point = TouchPoint(x: 640, y: 200)
        nook.reader.send(.down(point), .tap(point), .up(cancelled: false))
        await nook.settle("the action invoked") { nook.kinds(of: card.id).contains("invoked") }
        var iterator = presses.makeAsyncIterator()
        let press = await iterator.next()
        return OpenOnAction(invoked: nook.kinds(of: card.id).contains("invoked"), taken: press?.taken ?? false)
    }

    @Test func i1_t2_e3_e8_openOnACardWithAnActionInvokesItAndIsTakenByTheSocketsPressAsByATap() async throws {
        let bySocket = try openOnActionBySocket()
        let byTouch = try await Task.detached { try await openOnActionByTouch() }.value
        #expect(bySocket == OpenOnAction(invoked: true, taken: true))
        #expect(byTouch == bySocket)
    }

    func recallThenDismissBySocket() throws -> RecallThenDismiss {
        let daemon = try start()
        defer { #expect(daemon.stop().status == 0) }
        for title in ["Parcel", "Laundry"] {
            try daemon.request(.enqueue(NookActivity(title: title, dwell: .milliseconds(200)), module: nil, wait: false))
        }
        try eventually("both cards in the history", timeout: 30) {
            try daemon.client().request(Request(id: .number(1), operation: .history(HistoryQuery())), as: HistoryAnswer.self).0.total == 2
        }
        try eventually("the display idle", timeout: 30) { (try daemon.request(.status))["modules"]?.items.first?["current"] == .null }
        let presser = try daemon.client()
        _ = try presser.request(Request(id: .number(1), operation: .press(.open, holdMs: 900)), as: PressAnswer.self)
        let recalling = (try? eventually("the recall started") { log(daemon).contains("recall: long press on an idle display") }) != nil
        _ = try presser.request(Request(id: .number(2), operation: .press(.dismiss)), as: PressAnswer.self)
        let ended = (try? eventually("the recall ended") { log(daemon).contains("recall: ended (dismiss pressed)") }) != nil
        return RecallThenDismiss(recallingAfterLongPress: recalling, recallingAfterDismiss: !ended)
    }

    func recallThenDismissByTouch() async throws -> RecallThenDismiss {
        let nook = try await TouchHarness(history: ["Parcel", "Laundry"])
        let point = TouchPoint(x: 640, y: 200)
        nook.reader.send(.down(point), .longPress(point), .up(cancelled: false))
        let recalling = nook.recall.isActive
        nook.reader.send(.down(point), .swipe(point, dx: -160), .up(cancelled: false))
        return RecallThenDismiss(recallingAfterLongPress: recalling, recallingAfterDismiss: nook.recall.isActive)
    }

    @Test func i1_t2_u5_aLongPressRecallsOnAnIdleDisplayAndDismissEndsTheRecallByTheSocketsPressAsByTouch() async throws {
        let bySocket = try recallThenDismissBySocket()
        let byTouch = try await Task.detached { try await recallThenDismissByTouch() }.value
        #expect(bySocket == RecallThenDismiss(recallingAfterLongPress: true, recallingAfterDismiss: false))
        #expect(byTouch == bySocket)
    }
}
