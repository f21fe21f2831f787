import NookActivities

/// LCDd's screen list: which screen shows, rotation and timeouts in frames of 1/8 s, and the
/// glance composed from it.
extension LCDServerModel {
    // MARK: The screen list

    func screen(_ ref: ScreenRef) -> LCDScreen? { clients[ref.client]?.screens[ref.screen] }

    /// LCDd sorts its list by priority class, highest first, keeping the order of equals.
    func sortedList() -> [ScreenRef] {
        let priorities = screenList.map { screen($0)?.priority ?? .hidden }
        return screenList.indices.sorted { priorities[$0] != priorities[$1] ? priorities[$0] > priorities[$1] : $0 < $1 }.map { screenList[$0] }
    }

    func removeFromList(_ ref: ScreenRef) {
        if current == ref {
            goToNext()
            // The shown screen's client is told `ignore` as it goes, as LCDd tells it.
            if current == ref { switchTo(nil) }
        }
        screenList.removeAll { $0 == ref }
        if current == nil, !menuIsOpen { showFirstScreen() }
        glanceChanged = true
    }

    /// Shows the first screen of the sorted list, if one is to be shown.
    func showFirstScreen() {
        if let first = sortedList().first, (screen(first)?.priority ?? .hidden) > .hidden { switchTo(first) }
    }

    func switchTo(_ ref: ScreenRef?) {
        guard ref != current else { return }
        // A client that said `bye` is still here until its answers are out: it hears `ignore`.
        // (`self.`: the model's own send, declared in Server.swift, not Glibc's.)
        if let old = current, clients[old.client] != nil { self.send(old.client, "ignore \(old.screen)") }
        if let ref { self.send(ref.client, "listen \(ref.screen)") }
        current = ref
        currentStart = frame
        glanceChanged = true
    }

    func goToNext() {
        guard let current, let now = screen(current) else { return }
        let list = sortedList()
        guard let position = list.firstIndex(of: current) else { return }
        var next = position + 1 < list.count ? list[position + 1] : nil
        if next == nil || (screen(next!)?.priority ?? .hidden) < now.priority { next = list.first }
        switchTo(next)
    }

    /// Moves time on to `target` (frames of 1/8 s since start), doing LCDd's per-frame work:
    /// the first screen is shown, a screen's timeout counts down while it is shown, a higher
    /// class takes over at once, and `info`/`foreground` screens rotate after their duration.
    public func advance(toFrame target: Int) {
        while frame < target {
            frame += 1
            process()
        }
    }

    func process() {
        collectCards()
        // The open menu is LCDd's screen at `input` priority: nothing rotates under it.
        if menuIsOpen {
            menuTick()
            return
        }
        let list = sortedList()
        guard let first = list.first, (screen(first)?.priority ?? .hidden) > .hidden else {
            switchTo(nil)
            return
        }
        guard let ref = current, var shown = screen(ref) else {
            switchTo(first)
            return
        }
        if shown.timeout != -1 {
            shown.timeout -= 1
            clients[ref.client]?.screens[ref.screen] = shown
            if shown.timeout <= 0 {
                clients[ref.client]?.screens[ref.screen] = nil
                clients[ref.client]?.screenOrder.removeAll { $0 == ref.screen }
                removeFromList(ref)
                return
            }
        }
        if let top = screen(first), top.priority > shown.priority {
            switchTo(first)
            return
        }
        if frame - currentStart >= shown.duration, shown.priority > .background, shown.priority <= .foreground {
            goToNext()
        }
        // A scroller moves with time.
        if shown.widgets.contains(where: { $0.type == .scroller }) { glanceChanged = true }
    }

    /// A screen at `alert` or `foreground` with something on it becomes a card once per
    /// stay at that class, a frame after it got there so its widgets are set.
    func collectCards() {
        for ref in screenList {
            guard let client = clients[ref.client], var screen = client.screens[ref.screen],
                  screen.priority >= .foreground, screen.priority <= .alert, !screen.carded else { continue }
            let composed = LCDComposer(grid: grid, frame: frame).compose(screen)
            let lines = composed.lines.enumerated().filter { $0.offset != composed.titleRow }.map { $0.element.trimmingCharacters }.filter { !$0.isEmpty }
            // A screen raised before its widgets are set waits for them: a card of its bare id
            // or name would say nothing.
            let heading = LCDComposer.title(of: screen)?.trimmingCharacters ?? ""
            guard !heading.isEmpty || !lines.isEmpty else { continue }
            let title = heading.isEmpty ? screen.name ?? lines.first ?? screen.id : heading
            screen.carded = true
            client.screens[ref.screen] = screen
            var subtitle = lines.filter { $0 != title }.joined(separator: " · ")
            if subtitle.count > 1024 { subtitle = String(subtitle.prefix(1024)) }
            var activity = NookActivity(title: LCDText.display(String(title.prefix(256))))
            activity.subtitle = subtitle.isEmpty ? nil : LCDText.display(subtitle)
            activity.priority = screen.priority == .alert ? .high : .normal
            activity.coalescingKey = "lcdproc:\(client.name ?? "client\(ref.client.rawValue)"):\(ref.screen)"
            activity.systemImage = screen.priority == .alert ? "exclamationmark.triangle" : "info.circle"
            activity.tint = .named(screen.priority == .alert ? .orange : .blue)
            cards.append(activity)
        }
    }

    /// The shown screen as a glance; nil when no client screen is shown.
    public func glance() -> NookGlance? {
        var glance: NookGlance
        if menuIsOpen {
            guard let menu = menuGlance() else { return nil }
            glance = menu
            glance.menu = true
        } else {
            guard let current, let shown = screen(current) else { return nil }
            glance = LCDComposer(grid: grid, frame: frame).compose(shown)
        }
        glance.lines = glance.lines.map(LCDText.display)
        return glance
    }

    /// The client and screen id shown now.
    public var shownScreen: (client: LCDClientID, screen: String)? { current.map { ($0.client, $0.screen) } }
}

extension String {
    var trimmingCharacters: String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text.removeFirst() }
        while text.last?.isWhitespace == true { text.removeLast() }
        return String(text)
    }
}
