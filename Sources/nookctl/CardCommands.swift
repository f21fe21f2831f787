#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import NookActivities
import NookProtocol
import NookSystem

extension OperationCommands {
    /// The commands that end or act on cards.
    static var cardCommands: [(NookOperation.Name, ParsableCommand.Type)] {
        [
        (.cancel, Cancel.self),
        (.cancelAll, CancelAll.self),
        (.dismiss, Dismiss.self),
        (.invoke, Invoke.self),
        ]
    }
}

struct Cancel: ParsableCommand {
    static let configuration = CommandConfiguration.operation(Cancel.self, abstract: "Cancel an activity: pending ones are dropped, the one on screen ends early.")
    @OptionGroup var connection: Connection
    @Argument(help: "The activity's id.") var id: String
    func validate() throws { if NookActivityID(id) == nil { throw ValidationError("'\(id)' is not an activity id (a UUID)") } }
    func run() throws {
        connection.run(.cancel(NookActivityID(id)!), as: CancelAnswer.self) { answer in
            answer.alreadyEnding.map { "\(answer.cancelled) was already ending (\($0)); it ends as that" }
        }
    }
}

struct CancelAll: ParsableCommand {
    static let configuration = CommandConfiguration.operation(CancelAll.self, abstract: "Cancel every pending activity with a coalescing key.")
    @OptionGroup var connection: Connection
    @Argument(help: "The coalescing key.") var key: String
    @Option(help: "Only in this module.") var module: String?
    func run() throws { connection.run(.cancelAll(key: key, module: module), as: CancelAllAnswer.self) { "cancelled \($0.cancelled)" } }
}

struct Dismiss: ParsableCommand {
    static let configuration = CommandConfiguration.operation(
        Dismiss.self,
        abstract: "Dismiss the activity on screen (a blocker, usually), or the one with this id.")
    @OptionGroup var connection: Connection
    @Argument(help: "An activity id; without one, whatever is on screen.") var id: String?
    func validate() throws { if let id, NookActivityID(id) == nil { throw ValidationError("'\(id)' is not an activity id (a UUID)") } }
    func run() throws {
        connection.run(.dismiss(id.flatMap { NookActivityID($0) }), as: DismissAnswer.self) { answer in
            answer.alreadyEnding.map { "\(answer.dismissed) was already ending (\($0)); it ends as that" } ?? answer.dismissed.description
        }
    }
}

struct Invoke: ParsableCommand {
    static let configuration = CommandConfiguration.operation(
        Invoke.self,
        abstract: "Invoke the default action of the card on the glass, as the open input does (a notification's 'default' action).")
    @OptionGroup var connection: Connection
    @Argument(help: "An activity id; without one, whatever is on the glass.") var id: String?
    func validate() throws { if let id, NookActivityID(id) == nil { throw ValidationError("'\(id)' is not an activity id (a UUID)") } }
    func run() throws {
        connection.run(.invoke(id.flatMap { NookActivityID($0) }), as: InvokeAnswer.self) { $0.invoked.description }
    }
}
