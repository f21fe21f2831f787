#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import NookActivities
import NookProtocol
import NookSystem

extension OperationCommands {
    /// The commands for what the glass shows when idle, when it stays quiet, its indicator lights,
    /// and whether it is on and how bright.
    static var homeCommands: [(NookOperation.Name, ParsableCommand.Type)] {
        [
        (.home, Home.self),
        (.quiet, Quiet.self),
        (.indicator, Indicator.self),
        (.display, DisplayCommand.self),
        ]
    }
}

struct Home: ParsableCommand {
    static let configuration = CommandConfiguration.operation(
        Home.self, abstract: "Set what shows when no activity does: clock, blank, --text, or a mood light (light --color, light-off).")
    @OptionGroup var connection: Connection
    @Argument(help: "clock, blank, text, light (the whole glass one colour, the apps waiting) or light-off (what the light covered comes back).")
    var content: String
    @Option(help: "The status text, with 'text'.") var text: String?
    @Option(help: "The mood light's colour, #rrggbb (or rrggbb), with 'light'.") var color: String?

    var parsedColor: UInt32? { color.flatMap { NookIndicator.color(hex: $0.hasPrefix("#") ? $0 : "#" + $0) } }

    func validate() throws {
        guard ["clock", "blank", "text", "light", "light-off"].contains(content) else {
            throw ValidationError("content must be clock, blank, text, light or light-off; got '\(content)'")
        }
        if content == "text" && (text ?? "").isEmpty { throw ValidationError("'text' needs --text \"…\"") }
        if content == "light" && parsedColor == nil { throw ValidationError("'light' needs --color #rrggbb\(color.map { "; got '\($0)'" } ?? "")") }
        if content != "text" && text != nil { throw ValidationError("only 'text' takes --text") }
        if content != "light" && color != nil { throw ValidationError("only 'light' takes --color") }
    }
    func run() throws {
        let setting: HomeSetting = switch content {
        case "clock": .clock
        case "blank": .blank
        case "light": .light(parsedColor!)
        case "light-off": .lightOff
        default: .text(text!)
        }
        connection.run(.home(setting), as: HomeAnswer.self) { "home: \($0.home)" }
    }
}

struct Quiet: ParsableCommand {
    static let configuration = CommandConfiguration.operation(
        Quiet.self,
        abstract: "Quiet hours: on, off, until HH:MM (or 45m, 2h), or status. While quiet only high-priority activities (by default) show.")
    @OptionGroup var connection: Connection
    @Argument(help: "on, off, until or status.") var action: String
    @Argument(help: "With 'until': HH:MM (the next time the board's clock shows it) or a duration such as 45m or 2h.") var time: String?
    func validate() throws {
        guard ["on", "off", "until", "status"].contains(action) else { throw ValidationError("the action must be on, off, until or status; got '\(action)'") }
        if action == "until" && (time ?? "").isEmpty { throw ValidationError("'until' needs a time: HH:MM, or a duration such as 45m or 2h") }
        if action != "until" && time != nil { throw ValidationError("only 'until' takes a time") }
    }
    func run() throws {
        let setting: QuietSetting = switch action {
        case "on": .on
        case "off": .off
        case "until": .until(time!)
        default: .status
        }
        connection.run(.quiet(setting), as: QuietAnswer.self) { $0.summary }
    }
}

struct Indicator: ParsableCommand {
    static let configuration = CommandConfiguration.operation(
        Indicator.self,
        abstract: "Light an indicator (1 top right, 2 right middle, 3 bottom right) in a colour, blinking or fading, or turn it off.")
    @OptionGroup var connection: Connection
    @Argument(help: "1, 2 or 3.") var number: Int
    @Argument(help: "#rrggbb (or rrggbb), or off.") var color: String
    @Option(help: "Blink: on this many milliseconds, then off as long.") var blink: Int?
    @Option(help: "Fade in and out over this many milliseconds (a blink wins).") var fade: Int?

    var parsedColor: UInt32? {
        color == "off" ? 0 : NookIndicator.color(hex: color.hasPrefix("#") ? color : "#" + color)
    }

    func validate() throws {
        guard NookIndicator.numbers.contains(number) else { throw ValidationError("the indicator must be 1, 2 or 3; got \(number)") }
        guard parsedColor != nil else { throw ValidationError("the colour must be #rrggbb or off; got '\(color)'") }
        for (name, value) in [("--blink", blink), ("--fade", fade)] {
            if let value, !(0...NookIndicator.longestPeriodMs).contains(value) {
                throw ValidationError("\(name) must be milliseconds from 0 to \(NookIndicator.longestPeriodMs); got \(value)")
            }
        }
    }

    func run() throws {
        let setting = NookIndicator(number: number, color: parsedColor, blinkMs: blink ?? 0, fadeMs: fade ?? 0)
        connection.run(.indicator(setting), as: IndicatorAnswer.self) { $0.summary }
    }
}

struct DisplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration.operation(
        DisplayCommand.self,
        abstract: "Switch the display off (for good, or --for a while) or on, set its brightness, or show both.")
    @OptionGroup var connection: Connection
    @Argument(help: "on, off or status (the default, without --brightness).") var action: String?
    @Option(name: .customLong("for"), help: "With 'off': how long, such as 90s, 45m, 8h or 2d; then it is on again by itself.") var duration: String?
    @Option(parsing: .unconditional, help: "A percentage from 0 to 100 (a card shows at it; the other states keep their proportion), or auto.")
    var brightness: String?

    var setting: DisplaySetting {
        get throws {
            var setting = DisplaySetting()
            switch action {
            case "on": setting.power = .on
            case "off":
                setting.power = .off
                if let duration {
                    switch DurationText.seconds(duration, units: "smhd", expected: "a duration such as 90s, 45m, 8h or 2d",
                                                range: 1...Double(DisplaySetting.longestOffS), fractions: .wholeSeconds) {
                    case .success(let seconds): setting.power = .offFor(seconds: Int(seconds))
                    case .failure(let problem): throw ValidationError("--for \(problem)")
                    }
                }
            case "status", nil: break
            case let other?: throw ValidationError("the action must be on, off or status; got '\(other)'")
            }
            if duration != nil && action != "off" { throw ValidationError("only 'off' takes --for") }
            if brightness != nil && action == "status" { throw ValidationError("'status' only reads: leave it out to set the brightness") }
            if let brightness {
                if brightness == "auto" {
                    setting.brightness = .automatic
                } else if let percent = Int(brightness), DisplaySetting.percents.contains(percent) {
                    setting.brightness = .percent(percent)
                } else {
                    throw ValidationError("--brightness must be a percentage from 0 to 100, or auto; got '\(brightness)'")
                }
            }
            return setting
        }
    }

    func validate() throws { _ = try setting }

    func run() throws {
        connection.run(.display(try setting), as: DisplayAnswer.self) { $0.summary }
    }
}
