import NookActivities
import NookProtocol
import NookRender

extension Daemon {
    /// What the glass shows when no card is on it.
    static let homeHandlers: [OperationHandler] = [
        OperationHandler(\.device.home) { daemon, setting, reply in
            try await daemon.homeRequest(setting, reply)
        },
        OperationHandler(\.device.glance) { daemon, glance, reply in
            try await daemon.glanceRequest(glance, reply)
        },
    ]

    /// `home` (R4): the home content (a whole-device change: the dispatch checked the scope).
    func homeRequest(_ setting: HomeSetting, _ reply: RequestReply) async throws(ProtocolError) {
        // The rotation waits while the light is on (M1), as AWTRIX's app loop does: told within
        // the change, so two changes at once leave it as the glass.
        let lit: @Sendable (Bool) -> Void = { [apps] in apps.setLit($0) }
        let (replaced, content): (HomeContent?, HomeContent)
        switch setting {
        case .light(let color): (replaced, content) = await screen.setMoodLight(color, lit: lit)
        case .lightOff: (replaced, content) = await screen.setMoodLight(nil, lit: lit)
        case .clock, .blank, .text:
            let asked: HomeContent = switch setting {
            case .text(let text): .text(text)
            case .blank: .blank
            default: .clock
            }
            (replaced, content) = (await screen.setHome(asked, lit: lit), asked)
        }
        // Announced only when what `status` says changes (a watcher asks `status` again).
        menuOnGlance.withLock { $0 = nil }
        if replaced?.description != content.description { statusChanges.notify(.home) }
        reply.answer(HomeAnswer(home: content.description))
    }

    /// `glance` (E8): nook-lcdproc's screens as the home content.
    func glanceRequest(_ glance: NookGlance?, _ reply: RequestReply) async throws(ProtocolError) {
        let connection = reply.connection
        // Nil gives back the home the config names (the bridge has no screens left).
        let content = glance.map(HomeContent.glance) ?? state.withLock { $0.config.screen.home }
        let sender = ObjectIdentifier(connection)
        let claims = glance?.menu == true
        menuOnGlance.withLock { $0 = claims ? MenuClaim(owner: sender) : nil }
        // A bridge that dies with its menu open must not leave the open button dead until
        // the lease runs out. One watcher per connection, however often its menu opens.
        if claims, menuClaimWatched.withLock({ $0.insert(sender).inserted }) {
            Task { [menuOnGlance, menuClaimWatched] in
                await connection.waitUntilClosed()
                menuOnGlance.withLock { if $0?.owner == sender { $0 = nil } }
                menuClaimWatched.withLock { _ = $0.remove(sender) }
            }
        }
        // nook-lcdproc sends a glance whenever a widget changes (a clock: every second);
        // `status` only names the grid, so most glances change nothing it reports.
        // Under a mood light it waits for the light to go off (M1), and status goes on saying the light.
        guard let replaced = await screen.setHome(content, keepingLight: true) else {
            reply.answer(GlanceAnswer(home: await screen.currentSettings.home.description))
            return
        }
        if replaced.description != content.description { statusChanges.notify(.home) }
        reply.answer(GlanceAnswer(home: content.description))
    }
}
