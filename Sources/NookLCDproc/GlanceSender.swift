import NookLogging
import NookActivities
import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// Sends the composed glance and the cards to nookd from a thread of its own, so a slow or
/// absent nookd never stalls the LCDproc clients. Only the newest glance matters: one
/// submitted while another is on its way replaces it (any number of widget updates between
/// two round trips cost one). Cards are all sent, in order.
public final class GlanceSender: Sendable {
    struct Pending {
        var glance: NookGlance??
        var cards: [NookActivity] = []
        var stopped = false
    }

    private let socketPath: String
    private let module: String?
    private let logger: Logger
    private let pending = Locked(Pending())
    private let wake: WakePipe
    /// How often an open menu's glance is sent again, well inside nookd's lease on it.
    static let menuRenewal: Duration = .seconds(3)

    public init(socketPath: String, module: String?, logger: Logger) throws(SystemCallError) {
        (self.socketPath, self.module, self.logger) = (socketPath, module, logger)
        wake = try WakePipe()
        startThread { [self] in run() }
    }

    public func submit(glance: NookGlance?) {
        pending.withLock { $0.glance = .some(glance) }
        wake.wake()
    }

    public func submit(cards: [NookActivity]) {
        guard !cards.isEmpty else { return }
        pending.withLock { $0.cards += cards }
        wake.wake()
    }

    public func stop() {
        pending.withLock { $0.stopped = true }
        wake.wake()
    }

    private func run() {
        var client: NookClient?
        var warned = false
        // The glance nookd has: a nookd that restarts shows its own home until it is sent again.
        var sent: NookGlance??
        var sentAt = MonotonicClock.now
        while true {
            var entries = [wake.pollEntry]
            // Between requests nookd sends nothing on this connection: readable means it closed
            // (nookd stopped or restarted), which is noticed now, not at the next send.
            if let client { entries.append(pollfd(fd: client.descriptor, events: Int16(POLLIN), revents: 0)) }
            _ = try? pollDescriptors(&entries, timeoutMilliseconds: 1000)
            wake.drain()
            if entries.count > 1, entries[1].revents != 0 {
                client = nil
                logger.warning("lost nookd: its connection closed; the glance is sent again once it is back")
                warned = true
                pending.withLock { state in
                    if state.glance == nil, let sent { state.glance = sent }
                }
            }
            // nookd's hold for an open menu is a lease: renewed while the menu stays open, so it
            // lasts as long as the menu and lapses soon after this bridge stops.
            if case .some(.some(let shown)) = sent, shown.menu, MonotonicClock.now - sentAt >= Self.menuRenewal {
                pending.withLock { state in
                    if state.glance == nil { state.glance = shown }
                }
            }
            while true {
                let (glance, cards, stopped) = pending.withLock { state in
                    defer { state.glance = nil; state.cards = [] }
                    return (state.glance, state.cards, state.stopped)
                }
                if stopped { return }
                guard glance != nil || !cards.isEmpty else { break }
                do throws(ClientError) {
                    if client == nil {
                        let fresh = try NookClient(path: socketPath)
                        fresh.readTimeout = .seconds(10)
                        client = fresh
                        if warned { logger.info("nookd is reachable again at \(socketPath)") }
                        warned = false
                    }
                    for card in cards {
                        do throws(ClientError) {
                            let (answer, _) = try client!.request(Request(id: .number(1), operation: .enqueue(card, module: module, wait: false)), as: EnqueueAnswer.self)
                            // LCDproc's answer was given when the screen was set: what nookd says
                            // the glass will not show (characters an LED font lacks) is logged.
                            for warning in answer.warnings { logger.notice("the card \"\(card.title)\": \(warning)") }
                        } catch {
                            if case .daemon(let refusal) = error { logger.warning("nookd refused the card \"\(card.title)\": \(refusal.message)") } else { throw error }
                        }
                    }
                    if let glance {
                        _ = try client!.request(Request(id: .number(2), operation: .glance(glance)), as: GlanceAnswer.self)
                        (sent, sentAt) = (glance, MonotonicClock.now)
                    }
                } catch {
                    client = nil
                    if case .daemon(let refusal) = error {
                        logger.error("nookd refused the glance: \(refusal.message)")
                        continue
                    }
                    if !warned { logger.warning("nookd is not reachable (\(error)); the glance is kept and sent once it is back") }
                    warned = true
                    // Keep what was not sent (unless something newer came meanwhile) and retry.
                    pending.withLock { state in
                        if state.glance == nil { state.glance = glance }
                        state.cards = cards + state.cards
                    }
                    break
                }
            }
        }
    }
}
