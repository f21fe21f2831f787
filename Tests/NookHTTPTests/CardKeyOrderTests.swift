import NookHTTP
import NookProtocol
import NookTestTraits
import Testing

/// ``CardKeyOrder`` alone: requests with one key run one after another in the order taken,
/// each once the one before it has answered; other keys, and requests without a key, never wait.
@Suite struct CardKeyOrderTests {
    @Test func h3_requestsWithOneKeyRunOneAfterAnotherInTheOrderTakenAndOtherKeysDoNotWait() throws {
        let order = CardKeyOrder()
        var started: [String] = []
        var answer: [String: () -> Void] = [:]
        func take(_ name: String, key: String?) -> RecordingExchange {
            let exchange = RecordingExchange(request: httpRequest("POST", "/" + name))
            order.run(key: key, exchange) { exchange in
                started.append(name)
                answer[name] = { exchange.respond(.json(.object([("name", .string(name))]))) }
            }
            return exchange
        }
        func respond(_ name: String) throws {
            let answering = try #require(answer[name], "\(name) has not started")
            answering()
        }
        let firing = take("firing", key: "group"), resolved = take("resolved", key: "group"), again = take("again", key: "group")
        let other = take("other", key: "other group"), keyless = take("keyless", key: nil)
        #expect(started == ["firing", "other", "keyless"])
        #expect(order.busyKeys == 2)

        try respond("firing")
        #expect(started.suffix(1) == ["resolved"])
        #expect(firing.responses.count == 1 && resolved.responses.isEmpty)
        // A second answer (a handler's bug) neither starts another turn nor skips one.
        try respond("firing")
        #expect(started.suffix(1) == ["resolved"])

        try respond("resolved")
        #expect(started.suffix(1) == ["again"])
        try respond("again")
        #expect(again.responses.count == 1)
        #expect(order.busyKeys == 1, "the other group's request is still under way")
        try respond("other")
        try respond("keyless")
        #expect(order.busyKeys == 0)
        #expect(other.responses.count == 1 && keyless.responses.count == 1)
        #expect(started == ["firing", "other", "keyless", "resolved", "again"])
    }

    // 200,000 requests through the order in a debug build: on the computing tests' thread.
    @Test(.cpuBound) func h3_aLongLineOfRequestsThatAnswerAtOnceRunsWithoutTheStackGrowing() throws {
        // As when nookd is unreachable: every request behind the first answers 503 as it starts.
        let order = CardKeyOrder()
        var first: (() -> Void)?
        order.run(key: "group", RecordingExchange(request: httpRequest("POST", "/first"))) { exchange in
            first = { exchange.respond(.json(.null)) }
        }
        let count = 200_000
        var answered = 0
        for _ in 0..<count {
            order.run(key: "group", RecordingExchange(request: httpRequest("POST", "/next"))) { exchange in
                answered += 1
                exchange.respond(.json(.null))
            }
        }
        #expect(answered == 0)
        let answering = try #require(first)
        answering()
        #expect(answered == count)
        #expect(order.busyKeys == 0)
    }

    /// A request whose last call to nookd is made ends its turn then (``CardKeyOrder/lastCallMade(_:on:)``):
    /// the next with its key starts before the first is answered, and the first's answer, when it
    /// comes, ends nothing more: the second's turn lasts until its own end.
    @Test func h1_aRequestWhoseLastCallIsMadeLetsTheNextWithItsKeyStartBeforeItsAnswer() throws {
        let order = CardKeyOrder(), link = LinkWithWaitingCalls()
        var started: [String] = []
        var answer: [String: () -> Void] = [:]
        func take(_ name: String, callsMadeAtOnce: Bool) {
            order.run(key: "job", RecordingExchange(request: httpRequest("POST", "/" + name))) { exchange in
                started.append(name)
                answer[name] = { exchange.respond(.json(.object([("name", .string(name))]))) }
                if callsMadeAtOnce { CardKeyOrder.lastCallMade(exchange, on: link) }
            }
        }
        func respond(_ name: String) throws {
            let answering = try #require(answer[name], "\(name) has not started")
            answering()
        }
        take("create", callsMadeAtOnce: true)
        take("change", callsMadeAtOnce: false)
        take("end", callsMadeAtOnce: false)
        #expect(started == ["create", "change"], "the create's call is made: the change may make its own")
        try respond("create")
        #expect(started == ["create", "change"], "the create's answer does not end the change's turn")
        try respond("change")
        #expect(started == ["create", "change", "end"])
        try respond("end")
        #expect(order.busyKeys == 0)

        // A call left waiting for room in the link keeps its turn until answered.
        link.callsWaiting = 1
        take("queued", callsMadeAtOnce: true)
        take("after", callsMadeAtOnce: true)
        #expect(started.suffix(2) == ["end", "queued"], "the queued create holds its key")
        link.callsWaiting = 0
        try respond("queued")
        #expect(started.suffix(1) == ["after"])
        #expect(order.busyKeys == 0, "the create after it found room: its turn ended with its call")
    }

    /// A link whose count of calls waiting for room the test sets; it makes no call.
    final class LinkWithWaitingCalls: NookdCalls {
        var callsWaiting = 0
        func call(_ request: Request, done: @escaping (Result<JSONValue, NookdCallError>) -> Void) {}
    }
}

