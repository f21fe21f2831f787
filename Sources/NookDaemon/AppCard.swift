import NookActivities
import NookProtocol
import NookSystem

/// The card the rotation shows for an app (A5).
extension AppRotation {
    /// An app card's coalescing key, `app:NAME`: a watcher's `invoked` event names the app from it.
    static func key(of name: String) -> String { "app:" + name }
    /// The app an app card's key names.
    static func name(ofKey key: String?) -> String? {
        // By scalars: a name that begins with a combining mark joins the ':' into one
        // character, which neither `hasPrefix` nor `dropFirst` would then see.
        let prefix = "app:".unicodeScalars
        guard let scalars = key?.unicodeScalars, scalars.starts(with: prefix) else { return nil }
        return String(scalars.dropFirst(prefix.count))
    }

    /// An app as a glance-sized card (A5 on strips and panels): its text as the title, a chart
    /// drawn in characters beneath, a stale one dimmed with its age; its face (fragments,
    /// chart) rides along for the renderers that draw apps their own way (the LED matrix,
    /// coloured fragments on a panel). A blocker: the rotation ends it. Never kept in the history.
    static func card(for entry: NookAppShelf.Entry, now: Double) -> NookActivity {
        let app = entry.app
        let stale = entry.isStale(at: now)
        var lines: [String] = []
        if let chart = app.chart { lines.append(chartText(chart)) }
        if stale { lines.append("stale · set " + nookAgo(now - entry.setAt)) }
        // No pause after it (Q13's end delay): a switch from one app to the next is one motion,
        // out then in, so an idle nookd wakes once a switch (A2), not twice around a pause.
        // An app without words is titled by its name where a card needs words (panels, strips).
        var card = NookActivity(coalescingKey: key(of: app.name), priority: .high, title: app.isWordless ? app.name : app.content.plainText,
                                subtitle: lines.isEmpty ? nil : lines.joined(separator: "  "), systemImage: app.icon,
                                tint: stale ? .named(.gray) : app.tint, presentation: .blocker(timeout: nil), progress: app.progress,
                                endDelay: .zero, isTransient: true, hasAction: app.hasAction, sender: app.sender)
        do { try card.validate() } catch { card.subtitle = nil }
        var fragments: [NookApp.Fragment] = []
        if case .fragments(let runs) = app.content { fragments = runs }
        card.app = NookAppFace(fragments: fragments, chart: app.chart, drawing: app.drawing, wordless: app.isWordless, stale: stale)
        return card
    }

    /// The chart in characters (``NookActivities/NookApp/Chart/characters``).
    static func chartText(_ chart: NookApp.Chart) -> String { chart.characters }
}
