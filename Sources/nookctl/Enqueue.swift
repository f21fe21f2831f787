#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import NookActivities
import NookProtocol

/// `nookctl enqueue`: ArgumentParser's definition of the command (help, completion, errors).
/// Well-formed command lines usually never reach it: see ``EnqueueCommandLine``.
struct Enqueue: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "enqueue", abstract: "Show an activity; prints its id.")
    @OptionGroup var connection: Connection
    @Option(help: "The card's title (required).") var title: String
    @Option(help: "Secondary text.") var subtitle: String?
    @Option(help: "Icon: an SF-Symbol-style name (hammer, bell, …) or a PNG path.") var icon: String?
    @Option(help: "Tint: \(NookTint.accepted).") var tint: String?
    @Option(help: "Coalescing key: a newer activity with the same key replaces a pending one.") var key: String?
    @Option(help: "low, normal or high.") var priority: String?
    @Option(help: "Seconds on screen (default 2.4).") var dwell: Double?
    @Flag(help: "Stay on screen until dismissed (nookctl dismiss, or the dismiss button).") var blocker = false
    @Option(help: "A blocker's timeout in seconds.") var timeout: Double?
    @Option(help: "Progress from 0 to 1, drawn as a bar.") var progress: Double?
    @Option(help: "Drop it if still waiting after this many seconds.") var expiresAfter: Double?
    @Option(help: "The module (queue) to show it in; default: the foreground module.") var module: String?
    @Option(help: "Use this id (a UUID) instead of a fresh one.") var id: String?
    @Flag(help: "Wait until the activity has ended; the exit code says how.") var wait = false

    var options: EnqueueOptions {
        EnqueueOptions(socket: connection.socket, json: connection.json, title: title, subtitle: subtitle, icon: icon, tint: tint,
                       key: key, priority: priority, dwell: dwell, blocker: blocker, timeout: timeout, progress: progress,
                       expiresAfter: expiresAfter, module: module, id: id, wait: wait)
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
    var module: String?
    var id: String?
    var wait = false

    struct Problem: Error {
        let message: String
    }

    var connection: Connection {
        var connection = Connection()
        connection.socket = socket
        connection.json = json
        return connection
    }

    /// The activity these options describe, or what is wrong with them (checked before
    /// nookd is contacted; its wording is what `nookctl enqueue` prints).
    func activity() -> Result<NookActivity, Problem> {
        func problem(_ message: String) -> Result<NookActivity, Problem> { .failure(Problem(message: message)) }
        var activity = NookActivity(coalescingKey: key, title: title, subtitle: subtitle, systemImage: icon)
        if let id {
            guard let parsed = NookActivityID(id) else { return problem("--id must be a UUID; got '\(id)'") }
            activity.id = parsed
        }
        if let tint {
            guard let parsed = NookTint(parsing: tint) else { return problem("--tint must be \(NookTint.accepted); got '\(tint)'") }
            activity.tint = parsed
        }
        if let priority {
            guard let parsed = NookActivityPriority(name: priority) else { return problem("--priority must be low, normal or high; got '\(priority)'") }
            activity.priority = parsed
        }
        if timeout != nil && !blocker { return problem("--timeout applies only with --blocker") }
        if let dwell {
            guard let duration = Duration.nookSeconds(dwell) else { return problem("--dwell must be a number of seconds") }
            activity.dwell = duration
        }
        if blocker { activity.presentation = .blocker(timeout: timeout.flatMap { Duration.nookSeconds($0) }) }
        activity.progress = progress
        activity.expiresAfter = expiresAfter.flatMap { Duration.nookSeconds($0) }
        do {
            try activity.validate()
        } catch {
            return problem("--\(error.field == "expiresAfter" ? "expires-after" : error.field): \(error.problem)")
        }
        return .success(activity)
    }

    /// Sends the activity and prints its id; with `wait`, follows it to its end and exits
    /// with a code saying how it ended.
    func send(_ activity: NookActivity) {
        guard wait else {
            connection.run(.enqueue(activity, module: module, wait: false)) { $0["id"]?.text }
            return
        }
        do {
            let client = try NookClient(path: connection.path)
            let accepted = try client.request(Request(id: .number(1), operation: .enqueue(activity, module: module, wait: true)))
            if json { print(accepted.serialized) } else if let id = accepted["id"]?.text { print(id) }
            var lost = "nookd closed the connection before the activity ended"
            do {
                while let line = try client.readLine() {
                    guard case .event(_, let event)? = try? ResponseLine.decode(line) else { continue }
                    if json { print(event.serialized) }
                    let name = event["event"]?.text, reason = event["reason"]?.text
                    guard name == "hidden" || name == "rejected" else { continue }
                    if !json { print("\(name!) (\(reason ?? "?"))") }
                    Glibc.exit(Self.exitCode(event: name!, reason: reason))
                }
            } catch {
                lost = error.description
            }
            // Accepted, then cut off (nookd stopped or restarted): 16, not 3 ("could not be
            // reached"), so a script can tell that the activity may still be shown.
            Self.connectionLost(lost, json: json)
        } catch {
            connection.fail(error)
        }
    }

    static func connectionLost(_ message: String, json: Bool) -> Never {
        if json {
            print(JSONValue.object([("error", .string(message)), ("exitCode", .number(Double(ExitCodes.connectionLost)))]).serialized)
        }
        var text = Array("nookctl: \(message)\n".utf8)
        _ = write(2, &text, text.count)
        Glibc.exit(ExitCodes.connectionLost)
    }

    static func exitCode(event: String, reason: String?) -> Int32 {
        switch (event, reason) {
        case ("hidden", "completed"): 0
        case (_, "dismissed"): ExitCodes.dismissed
        case (_, "cancelled"): ExitCodes.cancelled
        case (_, "coalesced"): ExitCodes.coalesced
        case (_, "expired"): ExitCodes.expired
        case (_, "timedOut"): ExitCodes.timedOut
        default: ExitCodes.rejected
        }
    }
}
