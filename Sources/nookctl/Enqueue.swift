#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import NookActivities
import NookProtocol

/// `nookctl enqueue`: ArgumentParser's definition of the command (help, completion, errors).
/// Well-formed command lines usually never reach it: see ``EnqueueCommandLine``.
struct Enqueue: ParsableCommand {
    static let configuration = CommandConfiguration.operation(Enqueue.self, abstract: "Show an activity; prints its id.")
    @OptionGroup var connection: Connection
    @Option(help: "The card's title (required).") var title: String
    @Option(help: "Secondary text.") var subtitle: String?
    @Option(help: "Icon: an SF-Symbol-style name (hammer, bell, …), a PNG or GIF path, or another name or LaMetric id (i1234) nookd finds as NAME.png or NAME.gif in its icon directories.") var icon: String?
    @Option(help: "Tint: \(NookTint.accepted).") var tint: String?
    @Option(help: "Coalescing key: a newer activity with the same key replaces a pending one.") var key: String?
    @Option(help: "low, normal or high.") var priority: String?
    @Option(help: "Seconds on screen (default 2.4).") var dwell: Double?
    @Flag(help: "Stay on screen until dismissed (nookctl dismiss, or the dismiss button).") var blocker = false
    @Option(help: "A blocker's timeout in seconds.") var timeout: Double?
    @Option(help: "Progress from 0 to 1, drawn as a bar.") var progress: Double?
    @Option(help: "Drop it if still waiting after this many seconds.") var expiresAfter: Double?
    @Flag(help: "Not kept in the history once it ends.") var transient = false
    @Flag(help: "It has a default action: the open input (or nookctl invoke) on its card reports 'invoked' instead of opening the nook.") var action = false
    @Option(help: "Its sound as it slides in: a chime's name (doorbell, message-new-instant, …), an RTTTL string (name:d=4,o=5,b=100:notes) or a WAV file's name in nookd's sound directory (knock.wav); \"\" for none, even where its priority has one.") var sound: String?
    @Option(help: "How many times its sound plays (1-100, at most 15 minutes in all), or until-engaged: until the card is engaged, dismissed or leaves the glass, or its escalation ends.") var soundRepeat: String?
    @Option(help: "The module (queue) to show it in; default: the foreground module.") var module: String?
    @Option(help: "Use this id (a UUID) instead of a fresh one.") var id: String?
    @Flag(help: "Wait until the activity has ended; the exit code says how.") var wait = false

    var options: EnqueueOptions {
        EnqueueOptions(socket: connection.socket, json: connection.json, title: title, subtitle: subtitle, icon: icon, tint: tint,
                       key: key, priority: priority, dwell: dwell, blocker: blocker, timeout: timeout, progress: progress,
                       expiresAfter: expiresAfter, transient: transient, action: action, sound: sound, soundRepeat: soundRepeat, module: module, id: id, wait: wait)
    }

    func validate() throws {
        if case .failure(let problem) = options.activity() { throw ValidationError(problem.message) }
    }

    func run() throws {
        guard case .success(let activity) = options.activity() else { return }  // validate() has run
        options.send(activity)
    }
}

/// Everything `nookctl enqueue` was asked for, from ArgumentParser or from the fast path.
struct EnqueueOptions: Equatable {
    var socket: String?
    var json = false
    var title = ""
    var subtitle: String?
    var icon: String?
    var tint: String?
    var key: String?
    var priority: String?
    var dwell: Double?
    var blocker = false
    var timeout: Double?
    var progress: Double?
    var expiresAfter: Double?
    var transient = false
    var action = false
    var sound: String?
    var soundRepeat: String?
    var module: String?
    var id: String?
    var wait = false

    struct Problem: Error {
        let message: String
    }

    var connection: Endpoint { Endpoint(socket: socket, json: json) }

    /// The activity these options describe, or what is wrong with them (checked before
    /// nookd is contacted; its wording is what `nookctl enqueue` prints).
    func activity() -> Result<NookActivity, Problem> {
        func problem(_ message: String) -> Result<NookActivity, Problem> { .failure(Problem(message: message)) }
        /// The value, or the problem named as `--flag must be …`.
        func parsed<Value>(_ field: ActivityField, _ result: Result<Value, FieldProblem>) -> Result<Value, Problem> {
            result.mapError { Problem(message: "\(field.flag!) \($0)") }
        }
        var activity = NookActivity(coalescingKey: key, title: title, subtitle: subtitle, systemImage: icon)
        do throws(Problem) {
            if let id { activity.id = try parsed(.id, ActivityFieldValue.id(id)).get() }
            if let tint { activity.tint = try parsed(.tint, ActivityFieldValue.tint(tint)).get() }
            if let priority { activity.priority = try parsed(.priority, ActivityFieldValue.priority(priority)).get() }
            if timeout != nil && !blocker { return problem("--timeout applies only with --blocker") }
            if let dwell { activity.dwell = try parsed(.dwell, ActivityFieldValue.seconds(dwell)).get() }
            if blocker { activity.presentation = .blocker(timeout: try timeout.map { (seconds) throws(Problem) in try parsed(.timeout, ActivityFieldValue.seconds(seconds)).get() }) }
            if let soundRepeat { activity.soundRepeat = try parsed(.soundRepeat, ActivityFieldValue.soundRepeat(soundRepeat)).get() }
            activity.expiresAfter = try expiresAfter.map { (seconds) throws(Problem) in try parsed(.expiresAfter, ActivityFieldValue.seconds(seconds)).get() }
        } catch {
            return .failure(error)
        }
        activity.progress = progress
        activity.isTransient = transient
        activity.hasAction = action
        activity.sound = sound
        do {
            try activity.validate()
        } catch {
            return problem("\(ActivityField.name(ofWireField: error.field, commandLine: true)): \(error.problem)")
        }
        return .success(activity)
    }

    /// Sends the activity and prints its id; with `wait`, follows it to its end and exits
    /// with a code saying how it ended.
    func send(_ activity: NookActivity) {
        guard wait else {
            connection.run(.enqueue(activity, module: module, wait: false), as: EnqueueAnswer.self) { $0.id.description }
            return
        }
        do {
            let client = try NookClient(path: connection.path)
            let (accepted, raw) = try client.request(Request(id: .number(1), operation: .enqueue(activity, module: module, wait: true)),
                                                     as: EnqueueAnswer.self)
            if json { print(raw.serialized) } else { print(accepted.id) }
            connection.warn(client.warning)
            connection.warn(accepted)
            var lost = "nookd closed the connection before the activity ended"
            do {
                while let line = try client.readLine() {
                    guard case .event(_, let json)? = try? ResponseLine.decode(line), let event = try? EventMessage(json: json),
                          event.id == accepted.id else { continue }
                    if self.json { print(json.serialized) }
                    guard let ending = event.ending else { continue }
                    if !self.json { print("\(event.name) (\(event.reason ?? "?"))") }
                    Glibc.exit(Self.exitCode(ending))
                }
            } catch {
                lost = error.description
            }
            // Accepted, then cut off (nookd stopped or restarted): 16, not 3 ("could not be
            // reached"), so a script can tell that the activity may still be shown.
            connection.fail(.connectionLost(lost))
        } catch {
            connection.fail(error)
        }
    }

    static func exitCode(_ ending: EventMessage.Ending) -> Int32 {
        switch ending {
        case .hidden(.completed): 0
        case .hidden(.dismissed), .rejected("dismissed"): ExitCodes.dismissed
        case .hidden(.cancelled), .rejected("cancelled"): ExitCodes.cancelled
        case .hidden(.timedOut): ExitCodes.timedOut
        case .rejected("coalesced"): ExitCodes.coalesced
        case .rejected("expired"): ExitCodes.expired
        case .rejected: ExitCodes.rejected
        }
    }
}

extension OperationCommands {
    /// `enqueue`.
    static var enqueueCommands: [(NookOperation.Name, ParsableCommand.Type)] {
        [
        (.enqueue, Enqueue.self),
        ]
    }
}
