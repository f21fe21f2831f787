/// The requests that show, change or end cards by key (an ntfy sequence id, an alert group, a
/// native `key`), run one at a time per key in the order nook-http took them (H1, H2, H3).
///
/// An end is several calls to nookd, a listing and then an end of each card found; a card is
/// one (an in-place enqueue), but an alert's is read against what the key last showed. Two
/// requests with one key whose calls interleave go wrong: an end that came second lists
/// before the first request's card is queued, misses the card it was sent to end, and the card
/// stays for ever (a resolve sent while its firing was on its way). So a request waits until every request taken before it with
/// its key has been answered, and requests with other keys never wait for it. A request's turn
/// ends with its answer, which each handler gives exactly once, after its last call to nookd;
/// or sooner, when its last call has been made (``lastCallMade(_:on:)``).
///
/// Runs on the server's loop thread, as every handler does.
public final class CardKeyOrder {
    private struct Turn {
        var key: String
        var exchange: any HTTPExchange
        var body: (any HTTPExchange) -> Void
    }

    /// The requests waiting behind the one under way, in order, from `head` on.
    private struct Line {
        var turns: [Turn] = []
        var head = 0
    }

    /// One line per key with a request under way.
    private var lines: [String: Line] = [:]
    /// Turns free to start, started by ``start(_:)`` one after another rather than from inside
    /// each other: a turn that ends at once (nookd unreachable answers 503 synchronously) starts
    /// the next without the stack growing with the queue.
    private var due: [Turn] = []
    private var starting = false

    public init() {}

    /// Keys with a request under way.
    public var busyKeys: Int { lines.count }

    /// Ends the turn of `exchange` (as ``run(key:_:_:)`` gave it to its body) before its answer,
    /// once its last call to nookd has been made. The link writes calls in the order they are
    /// made, on one connection whose lines nookd carries out in order, so the next request's
    /// calls cannot overtake this one's: a key's publishes reach nookd back to back, and its
    /// journal syncs them together, instead of a round trip and a sync each
    /// (`http_publish_per_s`). Only after a plain call: a wait for the glass goes on a
    /// connection of its own. A call left waiting for room among the calls in flight keeps its
    /// turn until answered: a burst on one key takes one place in that bounded line, not all of
    /// it, which would turn other requests away (503) and could refuse a key's request while
    /// accepting the one after it.
    public static func lastCallMade(_ exchange: any HTTPExchange, on nookd: any NookdCalls) {
        guard nookd.callsWaiting == 0 else { return }
        (exchange as? TurnExchange)?.endTurn()
    }

    /// Runs `body` once every request taken earlier with `key` has been answered (at once when
    /// none waits; at once without a key). `body` answers through the exchange it is given;
    /// that answer ends the turn.
    public func run(key: String?, _ exchange: any HTTPExchange, _ body: @escaping (any HTTPExchange) -> Void) {
        guard let key else {
            body(exchange)
            return
        }
        let turn = Turn(key: key, exchange: exchange, body: body)
        if lines[key] != nil {
            lines[key]!.turns.append(turn)
            return
        }
        lines[key] = Line()
        start(turn)
    }

    private func start(_ turn: Turn) {
        due.append(turn)
        guard !starting else { return }
        starting = true
        var index = 0
        while index < due.count {
            let next = due[index]
            index += 1
            next.body(TurnExchange(next.exchange) { [weak self] in self?.finish(next.key) })
        }
        due.removeAll(keepingCapacity: true)
        starting = false
    }

    private func finish(_ key: String) {
        // Taken out while changed, so its array is not copied.
        guard var line = lines.removeValue(forKey: key), line.head < line.turns.count else { return }
        let next = line.turns[line.head]
        line.head += 1
        // Turns started are let go now and then, not moved one by one.
        if line.head >= 64 && line.head * 2 >= line.turns.count {
            line.turns.removeFirst(line.head)
            line.head = 0
        }
        lines[key] = line
        start(next)
    }
}

/// An exchange whose first answer ends its turn in ``CardKeyOrder``.
private final class TurnExchange: HTTPExchange {
    private let exchange: any HTTPExchange
    private var finished: (() -> Void)?

    init(_ exchange: any HTTPExchange, finished: @escaping () -> Void) {
        (self.exchange, self.finished) = (exchange, finished)
    }

    var request: HTTPRequest { exchange.request }
    var caller: HTTPCaller { exchange.caller }
    var isOpen: Bool { exchange.isOpen }
    var client: HTTPClient { exchange.client }
    func whenEndedEarly(_ end: @escaping (HTTPEarlyEnd) -> Void) { exchange.whenEndedEarly(end) }

    func respond(_ response: HTTPResponse) {
        exchange.respond(response)
        endTurn()
    }

    func startStream(status: Int, headers: [(name: String, value: String)]) -> any HTTPStreamWriter {
        defer { endTurn() }
        return exchange.startStream(status: status, headers: headers)
    }

    /// Ends the turn, once: an answer after ``CardKeyOrder/lastCallMade(_:on:)`` ends nothing more.
    func endTurn() {
        let finished = finished
        self.finished = nil
        finished?()
    }
}
