import NookActivities
import NookProtocol

/// Fills nookd's history fast, for the figures and tests of large history answers: with the
/// queues suspended, `entries + 1` enqueues of one key go in one write, and each replaces the one
/// before (coalesced), which ends into the history as an entry of about 400 bytes (a page of 500
/// is about 200 KB). Returns once nookd has answered every enqueue; the last entry reaches the
/// history a moment later, which each caller waits for in its own way.
public enum HistoryBurst {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static func send(entries: Int, to client: NookClient) throws {
        _ = try client.request(Request(id: .number(-1), operation: .suspend(module: nil)))
        var lines = ""
        for number in 0...entries {
            var activity = NookActivity(title: "\(number) " + String(repeating: "t", count: 120))
            activity.subtitle = String(repeating: "s", count: 120)
            activity.coalescingKey = "burst"
            lines += Request(id: .number(Double(number)), operation: .enqueue(activity, module: nil, wait: false)).encoded() + "\n"
        }
        try client.sendRaw(Array(lines.utf8))
        for _ in 0...entries {
            guard let line = try client.readLine(), case .success = try ResponseLine.decode(line) else {
                throw Failure(description: "an enqueue of the history burst failed")
            }
        }
    }
}
