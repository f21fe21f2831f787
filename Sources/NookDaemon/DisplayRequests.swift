import NookActivities
import NookProtocol

extension Daemon {
    /// The display's power and brightness (M1, M4).
    static let displayHandlers: [OperationHandler] = [
        OperationHandler(\.device.display) { daemon, setting, reply in
            reply.answer(await daemon.displayRequest(setting))
        },
    ]

    /// `display` (a whole-device change unless it only reads: the dispatch checked the scope):
    /// switched and set before the answer, which says what holds now and what was asked and is
    /// not so (a brightness nookd does not set, a glass still dark for want of anyone there).
    func displayRequest(_ setting: DisplaySetting) async -> DisplayAnswer {
        let power = parts.displayPower
        var warnings: [String] = []
        if let asked = setting.power { await power.set(asked) }
        let controller = parts.brightness.current.withLock { $0 }
        if let asked = setting.brightness {
            if let controller {
                let percent: Int? = if case .percent(let percent) = asked { percent } else { nil }
                await controller.setPercent(percent)
                // Asked for, so not warned of here: each card sent while it holds is told.
                power.setToZero.withLock { $0 = percent == 0 }
                if await controller.isOverridden {
                    warnings.append("brightness: set; an escalation's brighter or pulse step keeps the glass until what it shows changes")
                }
            } else {
                warnings.append("brightness: not set: nook.toml has no [brightness] table, and without one nookd leaves the panel's brightness alone")
            }
        }
        let nobodyThere = parts.screen.screen.isHeldDark(for: .nobodyThere)
        if setting.power == .on, nobodyThere {
            warnings.append("power: the glass stays dark while nobody is in the room ([presence]); it lights when someone is back")
        }
        if !setting.reads { power.changes.notify(()) }
        return DisplayAnswer(on: !power.isOff, wakesInS: power.wakesInS, nobodyThere: nobodyThere,
                             brightnessSet: await controller?.percentSet, brightnessManaged: controller != nil, warnings: warnings)
    }
}
