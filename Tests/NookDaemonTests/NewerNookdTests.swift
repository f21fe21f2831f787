import Foundation
import NookActivities
import NookProtocol
import NookTestTraits
import Testing

/// A newer nookd may send an event kind or an end reason this nookctl does not know: nookctl
/// shows the event by its name and reads the rest of the answer, as it did when these were
/// plain strings, instead of dropping the line or failing a request that was carried out.
@Suite("C1 C2 nookctl reads what a newer nookd sends", .serialized, .ownThreads)
struct NewerNookdTests {
    static let id = NookActivityID()

    func event(_ name: String, reason: String? = nil) -> String {
        #"{"v":1,"id":1,"event":{"id":"\#(Self.id)","event":"\#(name)","#
            + (reason.map { #""reason":"\#($0)","# } ?? "") + #""at":1.5,"module":"default","title":"Door"}}"#
    }

    @Test func c2_watchPrintsAnEventKindItDoesNotKnow() throws {
        let scratch = Scratch()
        let server = OneAnswerServer(at: scratch.path + "/watch.sock") { [self] id in
            ResponseLine.success(id: id, result: WatchAnswer().json).encoded() + "\n" + event("escalated")
        }
        let result = try nookctl(["watch"], socket: server.path)
        #expect(result.output.contains("1.5s escalated \(Self.id) \"Door\""), "\(result)")
    }

    @Test func c2_enqueueWaitJSONPrintsAnEventKindItDoesNotKnowAndEndsOnHidden() throws {
        let scratch = Scratch()
        let server = OneAnswerServer(at: scratch.path + "/wait.sock") { [self] id in
            [ResponseLine.success(id: id, result: EnqueueAnswer(id: Self.id, module: "default").json).encoded(),
             event("escalated"), event("hidden", reason: "completed")].joined(separator: "\n")
        }
        let result = try nookctl(["enqueue", "--title", "Door", "--wait", "--json"], socket: server.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains(#""event":"escalated""#), "\(result)")
    }

    @Test func c2_cancelAndDismissOfACardEndingForAReasonNookctlDoesNotKnowSucceed() throws {
        let scratch = Scratch()
        for (command, member) in [("cancel", "cancelled"), ("dismiss", "dismissed")] {
            let server = OneAnswerServer(at: scratch.path + "/\(command).sock") { id in
                ResponseLine.success(id: id, result: .object([(member, .string(Self.id.description)), ("alreadyEnding", .string("preempted"))])).encoded()
            }
            let result = try nookctl([command, Self.id.description], socket: server.path)
            #expect(result.status == 0, "\(command): \(result)")
            #expect(result.error.isEmpty, "\(command): \(result)")
        }
    }
}
