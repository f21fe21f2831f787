import Foundation
import NookActivities
import NookProtocol
import NookTestTraits
import Testing

/// An enqueue on its own, one of a pipelined run and a replayed history entry go through one
/// path: the same checks give the same answers.
@Suite("C1 C3 one enqueue path", .serialized, .ownThreads)
struct EnqueuePathTests {
    @Test func q16_aSingleAPipelinedAndAReplayedEnqueueAreRefusedAlikeWhenTheQueueIsFull() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[queue]\ncapacity = 1\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        try daemon.request(.enqueue(NookActivity(title: "Gone", dwell: .milliseconds(50)), module: nil, wait: false))
        try eventually("the first card in the history") { (try daemon.request(.history(HistoryQuery())))["entries"]?.items.count == 1 }
        try daemon.request(.suspend(module: nil))
        try daemon.request(.enqueue(NookActivity(title: "Filler"), module: nil, wait: false))

        func refusals(_ lines: [String]) throws -> [ProtocolError] {
            let client = try daemon.client()
            try client.sendRaw(Array((lines.joined(separator: "\n") + "\n").utf8))
            return try lines.map { line in
                let answer = try #require(try client.readLine(), "no answer to \(line)")
                guard case .failure(_, let error) = try ResponseLine.decode(answer) else {
                    Issue.record("\(line) was answered \(String(decoding: answer, as: UTF8.self))")
                    return ProtocolError(.internalError, "")
                }
                return error
            }
        }
        func enqueue(_ id: Int, wait: Bool = false) -> String {
            Request(id: .number(Double(id)), operation: .enqueue(NookActivity(title: "Card \(id)"), module: nil, wait: wait)).encoded()
        }
        let single = try refusals([enqueue(1, wait: true)])
        let pipelined = try refusals([enqueue(2), enqueue(3)])
        let replayed = try refusals([Request(id: .number(4), operation: .historyReplay(.number(1))).encoded()])
        let expected = ProtocolError(.queueFull, "module default already holds 1 pending activities of equal or higher priority")
        #expect(single + pipelined + replayed == [expected, expected, expected, expected])
        #expect(daemon.stop().status == 0)
    }
}
