#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import NookActivities
import NookProtocol
import NookSystem

extension OperationCommands {
    /// The commands on the modules' queues and on which one is in front.
    static var moduleCommands: [(NookOperation.Name, ParsableCommand.Type)] {
        [
        (.suspend, Suspend.self),
        (.resume, Resume.self),
        (.quiesce, Quiesce.self),
        (.list, List.self),
        (.focus, Focus.self),
        ]
    }
}

struct Suspend: ParsableCommand {
    static let configuration = CommandConfiguration.operation(Suspend.self, abstract: "Stop new takeovers; the card on screen finishes. Everything queued is kept.")
    @OptionGroup var connection: Connection
    @Option(help: "Only this module (default: all).") var module: String?
    func run() throws { connection.run(.suspend(module: module), as: ModulesAnswer.self) { _ in nil } }
}

struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration.operation(Resume.self, abstract: "Show activities again after suspend or quiesce.")
    @OptionGroup var connection: Connection
    @Option(help: "Only this module (default: all).") var module: String?
    func run() throws { connection.run(.resume(module: module), as: ModulesAnswer.self) { _ in nil } }
}

struct Quiesce: ParsableCommand {
    static let configuration = CommandConfiguration.operation(
        Quiesce.self,
        abstract: "Stop at once: the card on screen goes back to the queue; returns when the glass is free.")
    @OptionGroup var connection: Connection
    @Option(help: "Only this module (default: all).") var module: String?
    func run() throws { connection.run(.quiesce(module: module), as: ModulesAnswer.self) { _ in nil } }
}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration.operation(List.self, abstract: "List the activity on screen and the pending ones, in the order they will show.")
    @OptionGroup var connection: Connection
    @Option(help: "Only this module.") var module: String?
    func run() throws {
        connection.run(fetching: { (client) throws(ClientError) in try client.list(module: module) }) { result in
            var lines: [String] = []
            for module in result.modules {
                lines.append("\(module.name):")
                if let current = module.current {
                    lines.append("  * \(current.id) \(current.priority) \"\(current.title)\" (on screen)")
                }
                for activity in module.pending {
                    lines.append("    \(activity.id) \(activity.priority) \"\(activity.title)\"")
                }
            }
            return lines.joined(separator: "\n")
        }
    }
}

struct Focus: ParsableCommand {
    static let configuration = CommandConfiguration.operation(
        Focus.self,
        abstract: "Make a module the foreground one (its queue shows any priority; others only high).")
    @OptionGroup var connection: Connection
    @Argument(help: "The module's name.") var module: String
    func run() throws { connection.run(.focus(module: module), as: FocusAnswer.self) { "foreground: \($0.to)" } }
}
