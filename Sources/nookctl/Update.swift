import ArgumentParser
import NookActivities
import NookProtocol

/// `nookctl update ID|--key KEY …` (U1): changes a pending or shown activity in place.
struct Update: ParsableCommand {
    static let configuration = CommandConfiguration.operation(
        Update.self,
        abstract: "Change a pending or shown activity in place: the card on the glass is redrawn, not shown again.",
        discussion: """
            Name the activity by id, or every live one with a coalescing key (--key). Only the \
            options given change. --timed turns a blocker into a timed card that ends on its own \
            after its dwell, counted from now; --restart-dwell counts the dwell from now. \
            Prints each updated id and the fields that changed.
            """)
    @OptionGroup var connection: Connection
    @Argument(help: "The activity's id (or give --key).") var id: String?
    @Option(help: "Update every pending or shown activity with this coalescing key instead of one id.") var key: String?
    @Option(help: "With --key: only in this module.") var module: String?
    @Option(help: "New title.") var title: String?
    @Option(help: "New secondary text.") var subtitle: String?
    @Option(help: "New icon.") var icon: String?
    @Option(help: "New tint: \(NookTint.accepted).") var tint: String?
    @Option(help: "low, normal or high.") var priority: String?
    @Option(help: "New dwell in seconds (counted from when it was presented, unless --restart-dwell).") var dwell: Double?
    @Flag(help: "Make it a blocker (stays until dismissed).") var blocker = false
    @Flag(help: "Make it timed: a blocker becomes a card that ends on its own after its dwell.") var timed = false
    @Option(help: "A blocker's timeout in seconds.") var timeout: Double?
    @Option(help: "Progress from 0 to 1.") var progress: Double?
    @Option(help: "Expiry in seconds after it was enqueued.") var expiresAfter: Double?
    @Flag(help: "Not kept in the history once it ends.") var transient = false
    @Flag(help: "Give it a default action (the open input reports 'invoked').") var action = false
    @Flag(help: "Take its default action away.") var noAction = false
    @Option(help: "New sound, for a card not yet on the glass: a chime's name or an RTTTL string; \"\" for none.") var sound: String?
    @Option(help: "How many times the new sound plays (1-100), or until-engaged.") var soundRepeat: String?
    @Option(help: "Clear an optional field (subtitle, icon, key, timeout, expiresAfter, progress, sound, soundRepeat); repeatable.") var clear: [String] = []
    @Flag(help: "Count the dwell (or a blocker's timeout) from now.") var restartDwell = false

    func validate() throws {
        if id == nil && key == nil { throw ValidationError("name the activity: an id, or --key KEY") }
        if id != nil && key != nil { throw ValidationError("give an id or --key, not both") }
        if let id, NookActivityID(id) == nil { throw ValidationError("'\(id)' is not an activity id (a UUID)") }
        if module != nil && key == nil { throw ValidationError("--module applies only with --key") }
        if action && noAction { throw ValidationError("--action and --no-action contradict each other") }
        if blocker && timed { throw ValidationError("--blocker and --timed contradict each other") }
        if case .failure(let problem) = changes() { throw ValidationError(problem.message) }
    }

    /// The changes as they go on the wire, checked as nookd will check them, each problem
    /// named by its option.
    func changes() -> Result<ActivityChanges, UpdateProblem> {
        var members: [(String, JSONValue)] = []
        func set(_ field: ActivityField, _ value: JSONValue?) { if let value { members.append((field.wireName, value)) } }
        set(.title, title.map(JSONValue.string))
        set(.subtitle, subtitle.map(JSONValue.string))
        set(.icon, icon.map(JSONValue.string))
        set(.tint, tint.map(JSONValue.string))
        set(.priority, priority.map(JSONValue.string))
        set(.dwell, dwell.map(JSONValue.number))
        set(.blocker, blocker ? .bool(true) : timed ? .bool(false) : nil)
        set(.timeout, timeout.map(JSONValue.number))
        set(.progress, progress.map(JSONValue.number))
        set(.expiresAfter, expiresAfter.map(JSONValue.number))
        set(.transient, transient ? .bool(true) : nil)
        set(.action, action ? .bool(true) : noAction ? .bool(false) : nil)
        set(.sound, sound.map(JSONValue.string))
        set(.soundRepeat, soundRepeat.map { Int($0).map { JSONValue.number(Double($0)) } ?? .string($0) })
        for name in clear {
            guard let field = ActivityField(rawValue: name) ?? ActivityField.allCases.first(where: { $0.flag == "--" + name }), field.isClearable else {
                let clearable = ActivityField.allCases.filter(\.isClearable).map(\.wireName).joined(separator: ", ")
                return .failure(UpdateProblem("--clear \(name): not a field that can be cleared (\(clearable))"))
            }
            if members.contains(where: { $0.0 == field.wireName }) { return .failure(UpdateProblem("--clear \(name) contradicts \(field.flag ?? name)")) }
            members.append((field.wireName, .null))
        }
        if members.isEmpty && !restartDwell { return .failure(UpdateProblem("nothing to change: give a field (--title, --progress, --timed, …), --clear or --restart-dwell")) }
        if members.isEmpty { return .success(ActivityChanges(members: [])) }
        do throws(ProtocolError) {
            return .success(try ActivityChanges(json: .object(members)))
        } catch {
            let wire = error.field.map { String($0.dropFirst("changes.".count)) }
            return .failure(UpdateProblem("\(wire.map { ActivityField.name(ofWireField: $0, commandLine: true) } ?? "update"): \(error.message)"))
        }
    }

    func run() throws {
        guard case .success(let changes) = changes() else { return }  // validate() has run
        let target: UpdateTarget = key.map { .key($0, module: module) } ?? .id(NookActivityID(id!)!)
        connection.run(.update(target, changes: changes, restartDwell: restartDwell), as: UpdateAnswer.self) { answer in
            answer.updated.map { "\($0.id) \($0.onScreen ? "on screen" : "pending"): \($0.fields.isEmpty ? "unchanged" : $0.fields.joined(separator: ", "))" }
                .joined(separator: "\n")
        }
    }
}

struct UpdateProblem: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

extension OperationCommands {
    /// `update`.
    static var updateCommands: [(NookOperation.Name, ParsableCommand.Type)] {
        [
        (.update, Update.self),
        ]
    }
}
