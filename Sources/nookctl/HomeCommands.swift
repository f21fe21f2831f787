#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import NookActivities
import NookProtocol
import NookSystem

extension OperationCommands {
    /// The commands for what the glass shows when idle and when it stays quiet.
    static var homeCommands: [(NookOperation.Name, ParsableCommand.Type)] {
        [
        (.home, Home.self),
        (.quiet, Quiet.self),
        ]
    }
}

struct Home: ParsableCommand {
    static let configuration = CommandConfiguration.operation(Home.self, abstract: "Set what shows when no activity does: clock, blank, or --text.")
    @OptionGroup var connection: Connection
    @Argument(help: "clock, blank or text.") var content: String
    @Option(help: "The status text, with 'text'.") var text: String?
    func validate() throws {
        guard ["clock", "blank", "text"].contains(content) else { throw ValidationError("content must be clock, blank or text; got '\(content)'") }
        if content == "text" && (text ?? "").isEmpty { throw ValidationError("'text' needs --text \"…\"") }
    }
    func run() throws {
        let setting: HomeSetting = content == "clock" ? .clock : content == "blank" ? .blank : .text(text!)
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
