import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// U1: what an in-place enqueue makes of the live card is all the sender asked for: its flags,
/// what the glass will not show said (M3), the card's own module named, and kept by the journal (J1).
@Suite("U1 an in-place enqueue sets the whole card, says what it says, and is journaled", .serialized, .ownThreads)
struct InPlaceReplacementTests {
    func held(_ daemon: DaemonProcess) throws -> [NookActivity] {
        try ListAnswer(json: daemon.request(.list(module: nil))).modules.flatMap { ($0.current.map { [$0] } ?? []) + $0.pending }
    }

    func send(_ client: NookClient, _ activity: NookActivity, module: String? = nil, inPlace: InPlaceReach? = .sender) throws -> EnqueueAnswer {
        try EnqueueAnswer(json: client.request(Request(id: .number(1), operation: .enqueue(activity, module: module, wait: false, inPlace: inPlace))))
    }

    func card(_ title: String, key: String = "k") -> NookActivity {
        var activity = NookActivity(coalescingKey: key, title: title)
        activity.sender = NookSender(uid: 0, pid: 0, name: "alice")
        return activity
    }

    /// The flags the new card lacks are false on the card changed: replacing once cleared only
    /// the fields that take a value, and a plain message kept the live card's action and transience.
    @Test func u1_aReplacementWithoutAnActionOrTransienceClearsTheLiveCardsFlags() throws {
        let daemon = try DaemonProcess()
        try daemon.request(.suspend(module: nil))
        let client = try NookClient(path: daemon.socket)
        var first = card("With an action")
        first.hasAction = true
        first.isTransient = true
        _ = try send(client, first)
        let second = card("Plain")
        let changed = try send(client, second)
        #expect(changed.updated?.map(\.id) == [first.id], "\(changed)")
        let now = try held(daemon)
        #expect(now.map(\.title) == ["Plain"])
        #expect(now.first?.hasAction == false, "the new card has no action, the live one still does: \(now)")
        #expect(now.first?.isTransient == false, "the new card is not transient, the live one still is: \(now)")
        // Offline as well: what nookd is asked to set.
        var live = first
        live = try ActivityChanges(members: [("action", .bool(false)), ("transient", .bool(false))]).applied(to: live)
        #expect(!live.hasAction && !live.isTransient, "an update can clear both, so replacing() can name them: \(live)")
        let members = ActivityChanges.replacing(with: second).json
        #expect(members["action"] != nil && members["transient"] != nil, "replacing() names neither: \(members.serialized)")
    }

    /// M3: what the glass will not show is said on the in-place path as on a plain enqueue.
    @Test func u1_m3_anInPlaceChangeSaysWhatAPlainEnqueueSays() throws {
        let daemon = try DaemonProcess()
        try daemon.request(.suspend(module: nil))
        let client = try NookClient(path: daemon.socket)
        var loud = card(String(repeating: "Very long title ", count: 20), key: "plain")
        loud.subtitle = String(repeating: "and a long subtitle ", count: 30)
        loud.systemImage = "no-such-icon-name-anywhere"
        let plain = try send(client, loud, inPlace: nil)
        _ = try send(client, card("first", key: "live"))
        var again = loud
        again.id = NookActivityID()
        again.coalescingKey = "live"
        let inPlace = try send(client, again)
        #expect(inPlace.updated != nil)
        #expect(!plain.warnings.isEmpty, "the plain enqueue is warned of something")
        #expect(Set(inPlace.warnings) == Set(plain.warnings), "plain: \(plain.warnings)\nin place: \(inPlace.warnings)")
    }

    /// The answer's module: a card found in another module than the first is named by its own.
    @Test func u1_theAnswerNamesTheModuleOfTheCardChanged() throws {
        let scratch = Scratch()
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", scratch.file("nook.toml", "[queue]\nmodules = [\"default\", \"other\"]\n")])
        try daemon.request(.suspend(module: nil))
        let client = try NookClient(path: daemon.socket)
        let first = card("In other")
        _ = try send(client, first, module: "other", inPlace: nil)
        let changed = try send(client, card("Changed"))
        #expect(changed.id == first.id && changed.module == "other", "\(changed)")
    }

    /// J1 with U1: an in-place change survives a restart as changed.
    @Test func u1_j1_anInPlaceChangeIsRestoredAsChangedAfterARestart() throws {
        let scratch = Scratch()
        let arguments = ["--journal", scratch.path + "/journal"]
        var daemon = try DaemonProcess(scratch: scratch, arguments: arguments)
        let client = try NookClient(path: daemon.socket)
        var first = card("Before")
        first.presentation = .blocker(timeout: nil)
        first.subtitle = "old subtitle"
        _ = try send(client, first)
        var second = card("After")
        second.presentation = .blocker(timeout: nil)
        second.tint = .named(.red)
        _ = try send(client, second)
        _ = daemon.stop()
        daemon = try DaemonProcess(scratch: scratch, arguments: arguments)
        let restored = try held(daemon)
        #expect(restored.map(\.title) == ["After"], "\(restored.map(\.title))")
        #expect(restored.first?.subtitle == nil && restored.first?.tint == .named(.red) && restored.first?.id == first.id, "\(restored)")
        _ = daemon.stop()
    }

    /// A blocker may become timed (U1), and a timed card replaced by a blocker becomes one.
    @Test func u1_aTimedCardReplacedByABlockerBecomesABlocker() throws {
        let daemon = try DaemonProcess()
        try daemon.request(.suspend(module: nil))
        let client = try NookClient(path: daemon.socket)
        _ = try send(client, card("Timed"))
        var blocker = card("Blocker")
        blocker.presentation = .blocker(timeout: .seconds(30))
        let answer = try send(client, blocker)
        #expect(answer.updated != nil)
        let now = try held(daemon)
        #expect(now.first?.presentation == .blocker(timeout: .seconds(30)), "\(now)")
    }
}
