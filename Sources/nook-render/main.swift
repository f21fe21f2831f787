import ArgumentParser
import NookActivities
import NookDisplay
import NookRender

/// Renders one activity card to a PNG, exactly as nookd would put it on a panel.
@main
struct NookRenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nook-render",
        abstract: "Render an activity card to a PNG at a panel size and theme.")

    @Option(help: "Panel size as the panel scans out, WIDTHxHEIGHT (1280x400, 1920x480, 400x1280, 320x170, 240x135).")
    var size = "1280x400"
    @Option(help: "Clockwise rotation from drawing to panel: 0, 90, 180 or 270. A 400x1280 panel used in landscape needs 90 or 270.")
    var rotation = 0
    @Option(help: "dark or light.")
    var theme = "dark"
    @Option(help: "The card's title.")
    var title: String
    @Option(help: "Secondary text.")
    var subtitle: String?
    @Option(help: "An SF-Symbol-style icon name (hammer, bell, …) or a PNG path.")
    var icon: String?
    @Option(help: "A palette name (\(NookTint.accepted)).")
    var tint = "accent"
    @Option(help: "Progress from 0 to 1, drawn as a bar.")
    var progress: Double?
    @Flag(help: "Draw as a blocker (the icon defaults to an exclamation mark).")
    var blocker = false
    @Option(name: .shortAndLong, help: "Where to write the PNG.")
    var output = "card.png"

    mutating func validate() throws {
        guard PixelSize(parsing: size) != nil else { throw ValidationError("--size must be WIDTHxHEIGHT, got '\(size)'") }
        guard Rotation(degrees: rotation) != nil, rotation % 90 == 0 else { throw ValidationError("--rotation must be 0, 90, 180 or 270, got \(rotation)") }
        guard Theme.Appearance(rawValue: theme) != nil else { throw ValidationError("--theme must be dark or light, got '\(theme)'") }
        guard NookTint(parsing: tint) != nil else { throw ValidationError("--tint must be \(NookTint.accepted); got '\(tint)'") }
    }

    func run() throws {
        let panel = PixelSize(parsing: size)!
        let turn = Rotation(degrees: rotation)!
        let activity = NookActivity(
            title: title, subtitle: subtitle, systemImage: icon, tint: NookTint(parsing: tint)!,
            presentation: blocker ? .blocker(timeout: nil) : .timed, progress: progress)
        do {
            try activity.validate()
        } catch {
            throw ValidationError("--\(error.field): \(error.problem)")
        }
        let logical = panel.rotated(turn.inverse)
        let card = CardRenderer(theme: .named(Theme.Appearance(rawValue: theme)!)).render(activity, size: logical)
        for warning in card.warnings { print("warning: \(warning)") }
        try PNG.write(card.frame.rotated(turn), to: output)
        print("wrote \(output) (\(panel), \(card.layout.arrangement) layout, drawn at \(logical))")
    }
}
