import NookLogging
import NookActivities
import NookConfig
import NookProtocol

extension Service {
    /// Z3, when an input reports presence: the display dims and goes dark with nobody there,
    /// and a digest of what came meanwhile greets whoever returns. Started before the inputs,
    /// so the first thing it hears is their first report; until an input says someone is
    /// there, nobody is, and the absence clock runs from start.
    final class Presence: DaemonService {
        typealias Settings = PresenceTracker.Settings?
        typealias Section = Settings
        static let name = "presence"
        static var needs: [any DaemonService.Type] { [Brightness.self, Screen.self, Queues.self] }
        static let keys = settings.map(\.key)

        let current = Locked<PresenceTracker?>(nil)
        private let engagement: NookEngagement
        private let arbiter: NookSurfaceArbiter
        private let modules: [NookModuleID]
        private let queues: [NookModuleID: NookActivityQueue]
        private let brightness: Brightness
        private let screen: DaemonScreen
        private let clock: any NookClock
        private let logger: Logger
        private let stops = StopActions()

        init(engagement: NookEngagement, arbiter: NookSurfaceArbiter, modules: [NookModuleID], queues: [NookModuleID: NookActivityQueue],
             brightness: Brightness, screen: DaemonScreen, clock: any NookClock, logger: Logger) {
            (self.engagement, self.arbiter, self.modules, self.queues) = (engagement, arbiter, modules, queues)
            (self.brightness, self.screen, self.clock, self.logger) = (brightness, screen, clock, logger)
        }

        func start(_ section: Section) async throws(DaemonError) {
            guard let settings = section else { return }
            let service = PresenceTracker(settings: settings, clock: clock, logger: logger, effects: .init(
                dim: { [brightness] dim in await brightness.current.withLock { $0 }?.setDimmed(dim) },
                dark: { [screen] dark in await screen.holdDark(dark, for: .nobodyThere) },
                digest: { [weak self] card in await self?.showDigest(card) }))
            current.withLock { $0 = service }
            let relays = modules.map { module in
                let events = queues[module]!.events(where: PresenceTracker.matters)
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
            stops.add {
                observation.cancel()
                continuation.finish()
                watcher.cancel()
                relays.forEach { $0.cancel() }
            }
        }

        func stop() async { await stops.run() }

        /// The digest card, in the foreground module's queue like any other card.
        private func showDigest(_ card: NookActivity) async {
            let module = arbiter.foregroundModule ?? modules[0]
            let result = await queues[module]!.enqueue(card)
            if case .rejected(_, let reason) = result {
                logger.warning("presence: the digest \"\(LogText.short(card.title))\" was refused: \(reason)")
            }
        }

        /// `status`'s `presence` member.
        func status() async -> StatusAnswer.Presence? {
            guard let service = current.withLock({ $0 }) else { return nil }
            let lastReturnMs = await service.lastReturn.map { $0.nookSeconds * 1000 }
            return StatusAnswer.Presence(state: await service.state.rawValue, unseen: await service.unseenCount, lastReturnMs: lastReturnMs)
        }
    }
}

extension Service.Presence: DeclaresSettings {
    static let dimAfter = Setting<Int>.integer("presence.dim_after_s", default: 60, in: 1...86_400, reload: .restart)
    /// At least ``dimAfter``: the display dims before it goes dark.
    static let blankAfter = Setting<Int>.integer("presence.blank_after_s", default: 300, in: 1...86_400, reload: .restart, shownRange: "up to 86400")
    static let digestDwell = Setting<Int>.integer("presence.digest_dwell_s", default: 8, in: 1...600, reload: .restart)
    static let settings = [dimAfter.declaration, blankAfter.declaration, digestDwell.declaration]
}

extension Service.Presence: OwnsSettings {
    static var member: WritableKeyPath<DaemonConfig, Settings> { \.presence }

    /// `[presence]` (Z3): when the display dims and goes dark with nobody there. Presence needs
    /// an input that reports it (the inputs', read before); the table without one is a
    /// mistake, not a quiet no-op.
    static func read(_ reader: ConfigReader, over settings: Settings, in reading: SettingsReading) throws(ConfigError) -> Settings {
        let keys = Self.settings.map(\.key)
        let inputs = reading.earlier.inputs
        let hasInput = inputs.proximity?.presenceThreshold != nil || inputs.gpioLines.contains { $0.role == .presence }
        guard hasInput else {
            if let stray = keys.first(where: { reader.document[$0] != nil }) {
                throw reader.error(stray, "needs an input that reports presence: proximity.presence_threshold, or a [gpio.NAME] table with role = \"presence\" (a PIR sensor)")
            }
            return nil
        }
        var presence = PresenceTracker.Settings()
        if let seconds = try dimAfter.read(reader) { presence.dimAfter = .seconds(seconds) }
        if let seconds = try blankAfter.read(reader) {
            guard Duration.seconds(seconds) >= presence.dimAfter else {
                throw reader.error(blankAfter.key, "must not be shorter than presence.dim_after_s (\(presence.dimAfter.components.seconds) s): the display dims before it goes dark; got \(seconds)")
            }
            presence.blankAfter = .seconds(seconds)
        } else if presence.blankAfter < presence.dimAfter {
            presence.blankAfter = presence.dimAfter
        }
        if let seconds = try digestDwell.read(reader) { presence.digestDwell = .seconds(seconds) }
        return presence
    }
}

extension Service.Presence: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.Presence {
        Service.Presence(engagement: wiring.engagement, arbiter: wiring.arbiter, modules: wiring.config.queues.modules, queues: try wiring.queues,
                         brightness: try wiring.part(Service.Brightness.self), screen: try wiring.screen, clock: wiring.clock, logger: wiring.logger)
    }
}

extension Service.Presence: ReportsStatus {
    func report(into status: inout StatusAnswer) async { status.presence = await self.status() }
}
