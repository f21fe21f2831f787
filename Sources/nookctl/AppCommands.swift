import ArgumentParser
import NookActivities
import NookProtocol

extension OperationCommands {
    /// `nookctl app …` (A1–A3): the apps the idle display rotates through.
    static var appCommands: [(NookOperation.Name, ParsableCommand.Type)] {
        [
        (.appSet, AppSet.self),
        (.appRemove, AppRemove.self),
        (.appList, AppList.self),
        (.appShow, AppShow.self),
        (.appNext, AppNext.self),
        (.appPrevious, AppPrevious.self),
        (.appSwitch, AppSwitchTo.self),
        ]
    }
}

struct Apps: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract: "Apps: named glances the idle display shows in turn with the home content (set, rm, list, show, next, previous, switch).",
        discussion: """
            An app stays until it is removed or its --lifetime runs out; setting one of the same name \
            updates it in place. Cards always go first; the rotation resumes after them. See docs/apps.md.
            """,
        subcommands: OperationCommands.subcommands(under: ["app"]),
        defaultSubcommand: AppList.self)
}

struct AppSet: ParsableCommand {
    static let configuration = CommandConfiguration.operation(AppSet.self, abstract: "Set an app: a new one joins the rotation, one of the same name is updated in place.")
    @OptionGroup var connection: Connection
    @Argument(help: "The app's name: one line of up to 64 characters, no '/' or control or bidi formatting characters.") var name: String
    @Option(help: "What it says (may be left out when an --icon, --progress or --chart shows something).") var text: String?
    @Option(help: "An icon name (nookctl icons), a PNG or GIF path, or another name or LaMetric id nookd finds as NAME.png or NAME.gif in its icon directories.") var icon: String?
    @Option(help: "accent, a palette colour or #RRGGBB.") var tint: String?
    @Option(help: "A progress bar, 0 to 1.") var progress: Double?
    @Option(help: "Up to 16 numbers, comma-separated: 1,4,9.") var chart: String?
    @Flag(help: "Draw the chart as a line, not bars.") var line = false
    @Option(help: "How long it stays each turn: 7s, 1m (default: [apps] duration_ms).") var duration: String?
    @Option(help: "Its place in the rotation, lowest first (0 to 9999).") var pos: Int?
    @Option(help: "It runs out this long after it was set: 90s, 10m, 2h, 7d.") var lifetime: String?
    @Flag(help: "When the lifetime runs out keep it, dimmed with its age, instead of removing it.") var stale = false
    @Flag(help: "It has an action: the open button on it tells its sender (invoked), as a card's.") var action = false

    func validate() throws {
        _ = try app()
    }

    func app() throws -> NookApp {
        // An app may be an icon, a bar or a chart alone, as AWTRIX's are.
        var app = NookApp(name: name, content: .text(text ?? ""), icon: icon, progress: progress, position: pos,
                          lifetimeMode: stale ? .stale : .remove, hasAction: action)
        if let tint {
            guard let parsed = NookTint(parsing: tint) else { throw ValidationError("--tint must be \(NookTint.accepted); got '\(tint)'") }
            app.tint = parsed
        }
        if let chart {
            var values: [Double] = []
            for word in chart.split(separator: ",", omittingEmptySubsequences: false) {
                guard let value = Double(String(word.filter { $0 != " " })), value.isFinite else {
                    throw ValidationError("--chart must be numbers separated by commas (1,4,9); got '\(word)'")
                }
                values.append(value)
            }
            app.chart = NookApp.Chart(line ? .line : .bar, values)
        } else if line {
            throw ValidationError("--line applies only with --chart")
        }
        if stale && lifetime == nil { throw ValidationError("--stale applies only with --lifetime") }
        app.duration = try Self.duration(duration, option: "--duration")
        app.lifetime = try Self.duration(lifetime, option: "--lifetime")
        do { try app.validate() } catch {
            if error.field == "text", app.isWordless { throw ValidationError("--text is required when there is no --icon, --progress or --chart to show") }
            throw ValidationError("\(Self.option(error.field)) \(error.problem)")
        }
        return app
    }

    static func duration(_ text: String?, option: String) throws -> Duration? {
        guard let text else { return nil }
        switch DurationText.seconds(text, expected: "a number and a unit such as 7s, 10m or 2h") {
        case .success(let seconds):
            // Past what a Duration is made from, `nookSeconds` has none: that is too long, never "no lifetime".
            guard let duration = Duration.nookSeconds(seconds) else { throw ValidationError("\(option) '\(text)' is too long") }
            return duration
        case .failure(let problem): throw ValidationError("\(option) \(problem)")
        }
    }

    /// The option a model field is given by.
    static func option(_ field: String) -> String {
        switch field {
        case "name": "the name"
        case "chart": "--chart"
        default: "--" + field
        }
    }

    func run() throws {
        let app = try app()
        connection.run(.appSet(app), as: AppSetAnswer.self) { "\($0.replaced ? "updated" : "added") app \($0.name)" }
    }
}

struct AppRemove: ParsableCommand {
    static let configuration = CommandConfiguration.operation(AppRemove.self, abstract: "Remove an app (your own; root and daemon.admin_group remove any).")
    @OptionGroup var connection: Connection
    @Argument(help: "The app's name.") var name: String
    func run() throws {
        connection.run(.appRemove(name), as: AppRemoveAnswer.self) { "removed app \($0.removed)" }
    }
}

struct AppList: ParsableCommand {
    static let configuration = CommandConfiguration.operation(AppList.self, abstract: "List the apps in the rotation's order (the default).")
    @OptionGroup var connection: Connection
    func run() throws {
        connection.run(.appList, as: AppListAnswer.self) { answer in
            guard !answer.apps.isEmpty else { return "no apps" }
            let now = HistoryText.now()
            return answer.apps.map { AppText.line($0, now: now) }.joined(separator: "\n")
        }
    }
}

struct AppShow: ParsableCommand {
    static let configuration = CommandConfiguration.operation(AppShow.self, abstract: "Show one app whole.")
    @OptionGroup var connection: Connection
    @Argument(help: "The app's name.") var name: String
    func run() throws {
        connection.run(.appShow(name), as: AppShowAnswer.self) { AppText.details($0.app, now: HistoryText.now()) }
    }
}

struct AppNext: ParsableCommand {
    static let configuration = CommandConfiguration.operation(AppNext.self, abstract: "Move the rotation on to its next turn.")
    @OptionGroup var connection: Connection
    func run() throws { connection.run(.appNext, as: AppSwitchAnswer.self, human: AppText.switched) }
}

struct AppPrevious: ParsableCommand {
    static let configuration = CommandConfiguration.operation(AppPrevious.self, abstract: "Move the rotation back to its previous turn.")
    @OptionGroup var connection: Connection
    func run() throws { connection.run(.appPrevious, as: AppSwitchAnswer.self, human: AppText.switched) }
}

struct AppSwitchTo: ParsableCommand {
    static let configuration = CommandConfiguration.operation(AppSwitchTo.self, abstract: "Move the rotation to the named app.")
    @OptionGroup var connection: Connection
    @Argument(help: "The app's name.") var name: String
    func run() throws { connection.run(.appSwitch(name), as: AppSwitchAnswer.self, human: AppText.switched) }
}

/// How a person reads apps in a terminal.
enum AppText {
    static func switched(_ answer: AppSwitchAnswer) -> String {
        let turn = answer.showing.map { "app \($0)" } ?? "the home content"
        if answer.afterLight { return "showing \(turn) once the mood light is off (nookctl home light-off)" }
        return answer.afterCard ? "showing \(turn) once the card on the glass ends" : "showing \(turn)"
    }

    /// `weather  "21 °C"  [pos 1, 7s, stale 3 min ago, from hass]`.
    static func line(_ state: AppState, now: Double) -> String {
        let app = state.app
        var notes: [String] = []
        if let position = app.position { notes.append("pos \(position)") }
        if let duration = app.duration { notes.append("\(duration.nookSeconds)s") }
        if state.stale { notes.append("stale, set \(nookAgo(now - state.setAt))") }
        if state.showing { notes.append("on the glass") }
        if let sender = app.sender { notes.append("from \(sender.name ?? "uid \(sender.uid)")") }
        return "\(state.showing ? "*" : " ") \(app.name)  \"\(app.content.plainText)\"" + (notes.isEmpty ? "" : "  [\(notes.joined(separator: ", "))]")
    }

    static func details(_ state: AppState, now: Double) -> String {
        let app = state.app
        var lines = ["name: \(app.name)", "text: \(app.content.plainText)"]
        if case .fragments(let fragments) = app.content {
            lines.append("fragments: " + fragments.map { "\"\($0.text)\"" + ($0.tint.map { " \($0)" } ?? "") }.joined(separator: ", "))
        }
        if let icon = app.icon { lines.append("icon: \(icon)") }
        lines.append("tint: \(app.tint)")
        if let progress = app.progress { lines.append("progress: \(progress)") }
        if let chart = app.chart { lines.append("chart (\(chart.style.rawValue)): " + chart.values.map { "\($0)" }.joined(separator: ",")) }
        lines.append("duration: " + (app.duration.map { "\($0.nookSeconds) s" } ?? "the default ([apps] duration_ms)"))
        lines.append("pos: " + (app.position.map(String.init) ?? "none (after those with one, in order of arrival)"))
        if let lifetime = app.lifetime {
            lines.append("lifetime: \(lifetime.nookSeconds) s, then \(app.lifetimeMode == .stale ? "stale" : "removed")")
        }
        lines.append("set: \(nookAgo(now - state.setAt))" + (state.stale ? " (stale)" : ""))
        if app.hasAction { lines.append("action: yes (the open button tells its sender)") }
        if let sender = app.sender { lines.append("sender: \(sender)") }
        if state.showing { lines.append("on the glass now") }
        return lines.joined(separator: "\n")
    }
}

