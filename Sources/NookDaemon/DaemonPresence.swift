import NookActivities
import NookProtocol

extension Daemon {
    /// Starts Z3 when an input reports presence; returns how to stop it (nil: not started).
    /// Started before the inputs, so the first thing it hears is their first report; until an
    /// input says someone is there, nobody is, and the absence clock runs from start.
    func startPresence(_ settings: PresenceService.Settings) async -> @Sendable () -> Void {
        let service = PresenceService(settings: settings, clock: clock, logger: logger, effects: .init(
            dim: { [weak self] dim in await self?.brightness.withLock { $0 }?.setDimmed(dim) },
            dark: { [weak self] dark in await self?.screen.holdDark(dark) },
            digest: { [weak self] card in await self?.showDigest(card) }))
        presence.withLock { $0 = service }
        let relays = modules.map { module in
            let events = queues[module]!.events(where: PresenceService.matters)
            return Task { for await event in events { await service.observe(event) } }
        }
        // The observer only says that something changed; the state is read again in order, so
        // two inputs reporting at once on two threads cannot leave a stale value last.
        let (changes, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let observation = engagement.observePresence { _ in continuation.yield() }
        let watcher = Task { [engagement] in
            await service.set(present: engagement.isPresent)
            for await _ in changes { await service.set(present: engagement.isPresent) }
        }
        logger.info("presence: dimming after \(settings.dimAfter), display off after \(settings.blankAfter) with nobody there")
        return {
            observation.cancel()
            continuation.finish()
            watcher.cancel()
            relays.forEach { $0.cancel() }
        }
    }

    /// The digest card, in the foreground module's queue like any other card.
    func showDigest(_ card: NookActivity) async {
        let module = arbiter.foregroundModule ?? modules[0]
        let result = await queues[module]!.enqueue(card)
        if case .rejected(_, let reason) = result {
            logger.warning("presence: the digest \"\(LogText.short(card.title))\" was refused: \(reason)")
        }
    }

    /// `status`'s `presence` member.
    func presenceStatus() async -> StatusAnswer.Presence? {
        guard let service = presence.withLock({ $0 }) else { return nil }
        let lastReturnMs = await service.lastReturn.map { $0.nookSeconds * 1000 }
        return StatusAnswer.Presence(state: await service.state.rawValue, unseen: await service.unseenCount, lastReturnMs: lastReturnMs)
    }
}
