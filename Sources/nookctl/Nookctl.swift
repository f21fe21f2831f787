#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import NookActivities
import NookProtocol
import NookSystem

@main
struct Nookctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nookctl",
        abstract: "Talk to nookd: show activities on the nook's display and control it.",
        discussion: """
            Exit codes: 0 success; 1 nookd refused the request (bad input, unknown module, queue full); \
            3 nookd could not be reached; 4 no such activity; 5 the activity belongs to another user \
            (update, cancel, dismiss); 64 bad command line. \
            enqueue --wait exits with how the activity ended: 0 shown to the end, 10 dismissed, \
            11 cancelled, 12 coalesced, 13 expired, 14 blocker timed out, 15 rejected, 16 connection lost.
            Shell completions: nookctl --generate-completion-script bash|zsh|fish.
            """,
        subcommands: OperationCommands.subcommands() + OperationCommands.local)

    /// `nookctl enqueue` with a well-formed command line skips ArgumentParser (see
    /// ``EnqueueCommandLine``); everything else goes through it.
    static func main() {
        let arguments = GlobalOptions.movedAfterSubcommand(Array(CommandLine.arguments.dropFirst()))
        if arguments.first == "enqueue", let plain = EnqueueCommandLine.parse(arguments.dropFirst()) {
            plain.options.send(plain.activity)
            return
        }
        main(arguments)
    }
}

/// Options every subcommand takes.
struct Connection: ParsableArguments {
    @Option(help: "nookd's socket (default: $NOOK_SOCKET, else $XDG_RUNTIME_DIR/nook/nookd.sock if it exists, else the system service's /run/nook/nookd.sock).")
    var socket: String?
    @Flag(help: "Print the answer as JSON (one object per line) for scripts.")
    var json = false

    var endpoint: Endpoint { Endpoint(socket: socket, json: json) }
    var path: String { endpoint.path }

    func run<Answer: NookAnswer>(_ operation: NookOperation, as type: Answer.Type, human: (Answer) -> String?) {
        endpoint.run(operation, as: type, human: human)
    }

    func run<Answer: NookAnswer>(fetching fetch: (NookClient) throws(ClientError) -> (Answer, JSONValue), human: (Answer) -> String?) {
        endpoint.run(fetching: fetch, human: human)
    }

    func warn(_ warning: String?) { endpoint.warn(warning) }

    func fail(_ error: ClientError) -> Never { endpoint.fail(error) }
}

/// Where nookctl sends a request and how it prints the answer: ``Connection``'s values
/// without ArgumentParser, for `nookctl enqueue`'s own reading of its command line
/// (initialising ArgumentParser's option wrappers cost a tenth of that command's run).
struct Endpoint {
    var socket: String?
    var json: Bool

    var path: String { socket ?? NookClient.defaultSocketPath }

    /// Runs one request and prints its result: as nookd sent it with `--json`, else through
    /// `human` reading the typed answer.
    func run<Answer: NookAnswer>(_ operation: NookOperation, as _: Answer.Type, human: (Answer) -> String?) {
        run(fetching: { (client) throws(ClientError) in try client.request(Request(id: .number(1), operation: operation), as: Answer.self) }, human: human)
    }

    /// ``run(_:as:human:)`` for answers asked for in several requests (`list` and `history`
    /// pages, joined by `fetch`).
    func run<Answer: NookAnswer>(fetching fetch: (NookClient) throws(ClientError) -> (Answer, JSONValue), human: (Answer) -> String?) {
        do {
            let client = try NookClient(path: path)
            let (answer, result) = try fetch(client)
            if json { print(result.serialized) } else if let text = human(answer) { print(text) }
            warn(client.warning)
            warn(answer)
        } catch {
            // The do-block throws only ClientError (typed throws).
            fail(error)
        }
    }

    /// nookd's warning beside an answer, on standard error: the request was done, with a
    /// caveat (SPEC J1: not saved to the journal).
    func warn(_ warning: String?) {
        guard let warning else { return }
        writeWhole("nookctl: warning: \(warning)\n", to: 2)
    }

    /// The answer's own warnings (an icon name nookd does not know): done, and exit 0.
    func warn(_ answer: some NookAnswer) {
        guard let answer = answer as? any NookWarningAnswer else { return }
        for warning in answer.warnings { warn(warning) }
    }

    func fail(_ error: ClientError) -> Never {
        if json {
            print(JSONValue.object([("error", .string(error.description)), ("exitCode", .number(Double(error.exitCode)))]).serialized)
        }
        writeWhole("nookctl: \(error)\n", to: 2)
        Glibc.exit(error.exitCode)
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

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration.operation(Status.self, abstract: "Show what is on the glass, what is waiting, and the inputs.")
    @OptionGroup var connection: Connection
    func run() throws {
        connection.run(.status, as: StatusAnswer.self) { status in
            let display = status.display
            var lines = ["display: \(display.mode) (backend \(display.backend), rotation \(display.rotation)°, theme \(display.theme))",
                         "home: \(status.home)",
                         "foreground module: \(status.foreground ?? "none")",
                         "engaged: \(status.engaged ? "yes" : "no")"]
            if let presence = status.presence {
                let meaning = ["present": "someone is there", "dimmed": "nobody for a while, dimmed", "away": "nobody there, display off"][presence.state] ?? presence.state
                lines.append("presence: \(presence.state) (\(meaning)\(presence.unseen > 0 ? ", \(presence.unseen) unseen" : ""))")
            }
            if let brightness = status.brightness {
                let percent = Int((Double(brightness.level) / Double(max(1, brightness.maximum)) * 100).rounded())
                let room = brightness.lux.map { ", the room at \($0.isFinite && abs($0) < 1e15 ? String(Int($0.rounded())) : String($0)) lux" } ?? ""
                lines.append("brightness: \(brightness.state), \(percent) % (\(brightness.level) of \(brightness.maximum) on \(brightness.output))\(room)")
            }
            for input in status.inputs {
                var line = "  input \(input.input) (\(input.role)): "
                if let problem = input.problem {
                    line += "unavailable (\(problem))"
                } else {
                    line += input.active ? "active" : "idle"
                    if let reading = input.reading {
                        line += ", reading " + (reading == reading.rounded() && abs(reading) < 1e15 ? String(Int(reading)) : String(reading))
                    }
                }
                lines.append(line)
            }
            if let gpio = status.gpio {
                lines.append("gpio: libgpiod \(gpio.library)")
                for line in gpio.lines {
                    let level = line.active.map { $0 ? "active" : "idle" } ?? "unavailable"
                    var text = "  \(line.name) (\(line.role)) at \(line.location): \(level), \(line.changes) changes"
                    if let problem = line.problem { text += " (\(problem))" }
                    lines.append(text)
                }
            }
            if let touch = status.touch {
                var line = "touch: "
                if let device = touch.device {
                    line += "\(device)" + (touch.name.map { " (\($0))" } ?? "")
                } else {
                    line += touch.problem ?? "no touchscreen"
                }
                // Without a panel, and none read since start, there is no gesture to speak of.
                if touch.device != nil || touch.gestures > 0 {
                    line += ", last gesture: \(touch.lastGesture ?? "none") (\(touch.gestures) in all)"
                }
                if touch.open { line += ", opened by a tap" }
                if touch.snoozed > 0 { line += ", \(touch.snoozed) snoozed" }
                if touch.device != nil, let problem = touch.problem { line += " (\(problem))" }
                lines.append(line)
            }
            for module in status.modules {
                var line = "module \(module.name): "
                if let current = module.current {
                    line += "showing \"\(current.title)\" (\(module.phase?.rawValue ?? "?"))"
                } else {
                    line += "idle"
                }
                line += ", \(module.pending) pending"
                if module.suspended { line += ", suspended" }
                if !module.displayAvailable { line += ", display unavailable" }
                if let parked = module.parked { line += ", waiting: \(parked)" }
                if let blocker = module.blockedBy { line += ", held by blocker \"\(blocker.title)\" \(blocker.id)" }
                lines.append(line)
            }
            return lines.joined(separator: "\n")
        }
    }
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

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration.operation(
        Watch.self,
        abstract: "Print lifecycle events as they happen (enqueued, animateIn, presented, animateOut, hidden, rejected, requeued, updated, invoked), and status changes (engaged, suspended, home, foreground).")
    @OptionGroup var connection: Connection
    func run() throws {
        do {
            let client = try NookClient(path: connection.path)
            _ = try client.request(Request(id: .number(1), operation: .watch), as: WatchAnswer.self)
            while let line = try client.readLine() {
                guard case .event(_, let json)? = try? ResponseLine.decode(line) else { continue }
                if connection.json {
                    print(json.serialized)
                } else if let overflow = OverflowMessage(json: json) {
                    // nookd keeps at most 4,096 events per module for a watcher that falls behind.
                    print("overflow: \(overflow.dropped) events of module \(overflow.module) were dropped here (this watcher fell behind)")
                } else if let change = StatusChangeMessage(json: json) {
                    // What `nookctl status` shows changed without an activity event (engagement, suspend, home, focus).
                    print("\(change.at.map { "\($0)s " } ?? "")status: \(change.change.rawValue) changed")
                } else if let event = try? EventMessage(json: json) {
                    let reason = event.reason.map { " (\($0))" } ?? event.fields.map { " (\($0.joined(separator: ", ")))" } ?? ""
                    print("\(event.at)s \(event.name)\(reason) \(event.id) \"\(event.title)\"")
                }
                fflush(nil)
            }
            // nookd ended the stream: it stopped or restarted, or dropped this watcher for
            // falling too far behind (its log names the connection).
            connection.fail(.connectionLost("nookd closed the watch (it stopped, or dropped this watcher for not reading fast enough)"))
        } catch {
            connection.fail(error)
        }
    }
}

struct Snapshot: ParsableCommand {
    static let configuration = CommandConfiguration.operation(Snapshot.self, abstract: "Save the frame on the glass as a PNG.")
    @OptionGroup var connection: Connection
    @Option(name: .shortAndLong, help: "Where to write the PNG.") var output = "snapshot.png"
    func run() throws {
        connection.run(.snapshot, as: SnapshotAnswer.self) { snapshot in
            do throws(SystemCallError) {
                let file = try FileDescriptor.open(output, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644)
                try snapshot.png.withUnsafeBytes { bytes in Result { () throws(SystemCallError) in try file.writeAll(bytes) } }.get()
            } catch {
                return "cannot write the snapshot: \(error)"
            }
            return "wrote \(output) (\(snapshot.width)x\(snapshot.height))"
        }
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

struct Focus: ParsableCommand {
    static let configuration = CommandConfiguration.operation(
        Focus.self,
        abstract: "Make a module the foreground one (its queue shows any priority; others only high).")
    @OptionGroup var connection: Connection
    @Argument(help: "The module's name.") var module: String
    func run() throws { connection.run(.focus(module: module), as: FocusAnswer.self) { "foreground: \($0.to)" } }
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
