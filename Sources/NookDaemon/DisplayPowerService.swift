import NookLogging
import NookActivities
import NookProtocol

extension Service {
    /// M1: the display switched off by a request (`display`; AWTRIX's `power` and `sleep`,
    /// LaMetric's `on`) and on again by one, or by itself at the end of a switch-off for a while.
    /// Off, the panel is held dark as for an empty room (Z3): the queues go on and cards are drawn
    /// on a dark glass, so it is right the moment it comes back on; each card's sender is told.
    /// Not kept across a restart: nookd starts with the display on.
    final class DisplayPower: DaemonService {
        typealias Section = NoSection
        static let name = "display power"
        static var needs: [any DaemonService.Type] { [Screen.self] }

        private struct State {
            var off = false
            /// When a switch-off for a while ends.
            var wakesAt: NookInstant?
            var timer: Task<Void, Never>?
            /// Counts the switches, so a timer from an earlier one wakes nothing.
            var generation = 0
        }

        private let state = Locked(State())
        /// The brightness is set to 0 % (`display`): switched on, the glass is dark all the same.
        let setToZero = Locked(false)
        private let screen: DaemonScreen
        private let clock: any NookClock
        private let logger: Logger
        /// Told each time the display switches or its brightness is set (a watcher's `status`
        /// changed).
        let changes = NookObserverList<Void>()

        init(screen: DaemonScreen, clock: any NookClock, logger: Logger) {
            (self.screen, self.clock, self.logger) = (screen, clock, logger)
        }

        func start(_ section: NoSection) async throws(DaemonError) {}

        func stop() async { state.withLock { $0.timer?.cancel() } }

        var isOff: Bool { state.withLock { $0.off } }

        /// Whole seconds until a switch-off for a while ends, rounded up: at least 1 while it
        /// has not ended (its timer may be a moment behind the clock).
        var wakesInS: Int? {
            guard let wakesAt = state.withLock({ $0.wakesAt }) else { return nil }
            let left = (wakesAt - clock.now).nookSeconds
            return max(1, Int(left.rounded(.up)))
        }

        /// Switches the display as asked; returns once the panel is dark or lit.
        func set(_ power: DisplaySetting.Power) async {
            var deadline: NookInstant?
            if case .offFor(let seconds) = power { deadline = clock.now + .seconds(seconds) }
            let generation = state.withLock { state in
                state.generation += 1
                state.timer?.cancel()
                (state.off, state.wakesAt, state.timer) = (power != .on, deadline, nil)
                // Under this lock, so the screen's reasons change in the order the switches do.
                screen.setDark(power != .on, for: .switchedOff)
                return state.generation
            }
            if let deadline {
                let timer = Task { [weak self, clock] in
                    do { try await clock.sleep(until: deadline) } catch { return }
                    await self?.wake(generation)
                }
                state.withLock { if $0.generation == generation { $0.timer = timer } else { timer.cancel() } }
            }
            await screen.applyDark()
        }

        /// The end of switch-off `generation`, if no other switch came since.
        private func wake(_ generation: Int) async {
            let woke = state.withLock { state in
                guard state.generation == generation, state.off else { return false }
                state.generation += 1
                (state.off, state.wakesAt, state.timer) = (false, nil, nil)
                screen.setDark(false, for: .switchedOff)
                return true
            }
            guard woke else { return }
            logger.info("display: on again, its time off over")
            await screen.applyDark()
            changes.notify(())
        }

        /// What a card's sender is told while the glass is dark by a request: switched off, or
        /// at a brightness of 0 %.
        var unseenNote: [String] {
            if isOff {
                let until = wakesInS.map { " for \(DisplayAnswer.spoken($0)) more" } ?? ""
                return ["the display is switched off\(until): this card goes by on a dark glass (nookctl display on lights it)"]
            }
            guard setToZero.withLock({ $0 }) else { return [] }
            return ["the brightness is set to 0 %: this card goes by on a dark glass (nookctl display --brightness sets it)"]
        }
    }
}

extension Service.DisplayPower: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.DisplayPower {
        Service.DisplayPower(screen: try wiring.screen, clock: wiring.clock, logger: wiring.logger)
    }
}

extension Service.DisplayPower: ReportsStatus {
    func report(into status: inout StatusAnswer) async {
        status.display.on = !isOff
        status.display.wakesInS = wakesInS
    }
}
