#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import NookActivities
import NookProtocol

@main
struct Nookctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nookctl",
        abstract: "Talk to nookd: show activities on the nook's display and control it.",
        discussion: """
            Exit codes: 0 success; 1 nookd refused the request (bad input, unknown module, queue full); \
            3 nookd could not be reached; 4 no such activity; 64 bad command line. \
            enqueue --wait exits with how the activity ended: 0 shown to the end, 10 dismissed, \
            11 cancelled, 12 coalesced, 13 expired, 14 blocker timed out, 15 rejected, 16 connection lost.
            Shell completions: nookctl --generate-completion-script bash|zsh|fish.
            """,
        subcommands: [Enqueue.self, Cancel.self, CancelAll.self, Dismiss.self, Suspend.self, Resume.self, Quiesce.self,
                      Status.self, List.self, Watch.self, Snapshot.self, Home.self, Focus.self])

    /// `nookctl enqueue` with a well-formed command line skips ArgumentParser (see
    /// ``EnqueueCommandLine``); everything else goes through it.
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == "enqueue", let plain = EnqueueCommandLine.parse(arguments.dropFirst()) {
            plain.options.send(plain.activity)
            return
        }
        main(nil)
    }
}

/// Options every subcommand takes.
struct Connection: ParsableArguments {
    @Option(help: "nookd's socket (default: $NOOK_SOCKET, else $XDG_RUNTIME_DIR/nook/nookd.sock if it exists, else the system service's /run/nook/nookd.sock).")
    var socket: String?
    @Flag(help: "Print the answer as JSON (one object per line) for scripts.")
    var json = false

    /// A user's own nookd first, then the system service's: a logged-in user has
    /// `XDG_RUNTIME_DIR` set even when nookd runs as the system service.
    var path: String {
        if let socket { return socket }
        if let chosen = getenv("NOOK_SOCKET").map({ String(cString: $0) }), !chosen.isEmpty { return chosen }
        if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !runtime.isEmpty,
           access(runtime + "/nook/nookd.sock", F_OK) == 0 {
            return runtime + "/nook/nookd.sock"
        }
        return "/run/nook/nookd.sock"
    }

    /// Runs one request and prints its result as JSON or through `human`.
    func run(_ operation: NookOperation, human: (JSONValue) -> String?) {
        do {
            let client = try NookClient(path: path)
            let result = try client.request(Request(id: .number(1), operation: operation))
            if json { print(result.serialized) } else if let text = human(result) { print(text) }
        } catch {
            // The do-block throws only ClientError (typed throws).
            fail(error)
        }
    }

    func fail(_ error: ClientError) -> Never {
        if json {
            print(JSONValue.object([("error", .string(error.description)), ("exitCode", .number(Double(error.exitCode)))]).serialized)
        }
        var text = Array("nookctl: \(error)\n".utf8)
        _ = write(2, &text, text.count)
        Glibc.exit(error.exitCode)
    }
}

struct Cancel: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "cancel", abstract: "Cancel an activity: pending ones are dropped, the one on screen ends early.")
    @OptionGroup var connection: Connection
    @Argument(help: "The activity's id.") var id: String
    func validate() throws { if NookActivityID(id) == nil { throw ValidationError("'\(id)' is not an activity id (a UUID)") } }
    func run() throws { connection.run(.cancel(NookActivityID(id)!)) { _ in nil } }
}

struct CancelAll: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "cancel-all", abstract: "Cancel every pending activity with a coalescing key.")
    @OptionGroup var connection: Connection
    @Argument(help: "The coalescing key.") var key: String
    @Option(help: "Only in this module.") var module: String?
    func run() throws { connection.run(.cancelAll(key: key, module: module)) { "cancelled \(Int($0["cancelled"]?.numberValue ?? 0))" } }
}

struct Dismiss: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "dismiss", abstract: "Dismiss the activity on screen (a blocker, usually), or the one with this id.")
    @OptionGroup var connection: Connection
    @Argument(help: "An activity id; without one, whatever is on screen.") var id: String?
    func validate() throws { if let id, NookActivityID(id) == nil { throw ValidationError("'\(id)' is not an activity id (a UUID)") } }
    func run() throws { connection.run(.dismiss(id.flatMap { NookActivityID($0) })) { $0["dismissed"]?.text } }
}

struct Suspend: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "suspend", abstract: "Stop new takeovers; the card on screen finishes. Everything queued is kept.")
    @OptionGroup var connection: Connection
    @Option(help: "Only this module (default: all).") var module: String?
    func run() throws { connection.run(.suspend(module: module)) { _ in nil } }
}

struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "resume", abstract: "Show activities again after suspend or quiesce.")
    @OptionGroup var connection: Connection
    @Option(help: "Only this module (default: all).") var module: String?
    func run() throws { connection.run(.resume(module: module)) { _ in nil } }
}

struct Quiesce: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "quiesce", abstract: "Stop at once: the card on screen goes back to the queue; returns when the glass is free.")
    @OptionGroup var connection: Connection
    @Option(help: "Only this module (default: all).") var module: String?
    func run() throws { connection.run(.quiesce(module: module)) { _ in nil } }
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show what is on the glass, what is waiting, and the inputs.")
    @OptionGroup var connection: Connection
    func run() throws {
        connection.run(.status) { status in
            var lines = ["display: \(status["display"]?["mode"]?.text ?? "?") (backend \(status["display"]?["backend"]?.text ?? "?"), rotation \(Int(status["display"]?["rotation"]?.numberValue ?? 0))°, theme \(status["display"]?["theme"]?.text ?? "?"))",
                         "home: \(status["home"]?.text ?? "?")",
                         "foreground module: \(status["foreground"]?.text ?? "none")",
                         "engaged: \(status["engaged"] == .bool(true) ? "yes" : "no")"]
            for input in status["inputs"]?.items ?? [] {
                lines.append("  input \(input["input"]?.text ?? "?") (\(input["role"]?.text ?? "?")): \(input["active"] == .bool(true) ? "active" : "idle")")
            }
            if let gpio = status["gpio"], gpio != .null {
                lines.append("gpio: libgpiod \(gpio["library"]?.text ?? "?")")
                for line in gpio["lines"]?.items ?? [] {
                    let level = line["active"] == .null ? "unavailable" : line["active"] == .bool(true) ? "active" : "idle"
                    var text = "  \(line["name"]?.text ?? "?") (\(line["role"]?.text ?? "?")) at \(line["location"]?.text ?? "?"): \(level), \(Int(line["changes"]?.numberValue ?? 0)) changes"
                    if let problem = line["problem"]?.text { text += " (\(problem))" }
                    lines.append(text)
                }
            }
            for module in status["modules"]?.items ?? [] {
                var line = "module \(module["name"]?.text ?? "?"): "
                if let current = module["current"], current != .null {
                    line += "showing \"\(current["title"]?.text ?? "?")\" (\(module["phase"]?.text ?? "?"))"
                } else {
                    line += "idle"
                }
                line += ", \(Int(module["pending"]?.numberValue ?? 0)) pending"
                if module["suspended"] == .bool(true) { line += ", suspended" }
                if module["displayAvailable"] == .bool(false) { line += ", display unavailable" }
                if let parked = module["parked"]?.text { line += ", waiting: \(parked)" }
                if let blocker = module["blockedBy"], blocker != .null { line += ", held by blocker \"\(blocker["title"]?.text ?? "?")\" \(blocker["id"]?.text ?? "")" }
                lines.append(line)
            }
            return lines.joined(separator: "\n")
        }
    }
}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the activity on screen and the pending ones, in the order they will show.")
    @OptionGroup var connection: Connection
    @Option(help: "Only this module.") var module: String?
    func run() throws {
        connection.run(.list(module: module)) { result in
            var lines: [String] = []
            for module in result["modules"]?.items ?? [] {
                lines.append("\(module["name"]?.text ?? "?"):")
                if let current = module["current"], current != .null {
                    lines.append("  * \(current["id"]?.text ?? "") \(current["priority"]?.text ?? "") \"\(current["title"]?.text ?? "")\" (on screen)")
                }
                for activity in module["pending"]?.items ?? [] {
                    lines.append("    \(activity["id"]?.text ?? "") \(activity["priority"]?.text ?? "") \"\(activity["title"]?.text ?? "")\"")
                }
            }
            return lines.joined(separator: "\n")
        }
    }
}

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "watch", abstract: "Print lifecycle events as they happen (enqueued, animateIn, presented, animateOut, hidden, rejected, requeued).")
    @OptionGroup var connection: Connection
    func run() throws {
        do {
            let client = try NookClient(path: connection.path)
            _ = try client.request(Request(id: .number(1), operation: .watch))
            while let line = try client.readLine() {
                guard case .event(_, let event)? = try? ResponseLine.decode(line) else { continue }
                if connection.json {
                    print(event.serialized)
                } else if event["event"]?.text == "overflow" {
                    // nookd keeps at most 4,096 events per module for a watcher that falls behind.
                    print("overflow: \(Int(event["dropped"]?.numberValue ?? 0)) events of module \(event["module"]?.text ?? "?") were dropped here (this watcher fell behind)")
                } else {
                    let reason = event["reason"]?.text.map { " (\($0))" } ?? ""
                    print("\(event["at"]?.numberValue.map { String($0) } ?? "?")s \(event["event"]?.text ?? "?")\(reason) \(event["id"]?.text ?? "") \"\(event["title"]?.text ?? "")\"")
                }
                fflush(nil)
            }
        } catch {
            connection.fail(error)
        }
    }
}

struct Snapshot: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "snapshot", abstract: "Save the frame on the glass as a PNG.")
    @OptionGroup var connection: Connection
    @Option(name: .shortAndLong, help: "Where to write the PNG.") var output = "snapshot.png"
    func run() throws {
        connection.run(.snapshot) { result in
            guard let text = result["png"]?.text, let bytes = Base64.decode(text) else { return "nookd sent no PNG" }
            guard let file = fopen(output, "wb") else { return "cannot write \(output): \(String(cString: strerror(errno)))" }
            defer { fclose(file) }
            _ = fwrite(bytes, 1, bytes.count, file)
            return "wrote \(output) (\(Int(result["width"]?.numberValue ?? 0))x\(Int(result["height"]?.numberValue ?? 0)))"
        }
    }
}

struct Home: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "home", abstract: "Set what shows when no activity does: clock, blank, or --text.")
    @OptionGroup var connection: Connection
    @Argument(help: "clock, blank or text.") var content: String
    @Option(help: "The status text, with 'text'.") var text: String?
    func validate() throws {
        guard ["clock", "blank", "text"].contains(content) else { throw ValidationError("content must be clock, blank or text; got '\(content)'") }
        if content == "text" && (text ?? "").isEmpty { throw ValidationError("'text' needs --text \"…\"") }
    }
    func run() throws {
        let setting: HomeSetting = content == "clock" ? .clock : content == "blank" ? .blank : .text(text!)
        connection.run(.home(setting)) { "home: \($0["home"]?.text ?? "?")" }
    }
}

struct Focus: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "focus", abstract: "Make a module the foreground one (its queue shows any priority; others only high).")
    @OptionGroup var connection: Connection
    @Argument(help: "The module's name.") var module: String
    func run() throws { connection.run(.focus(module: module)) { "foreground: \($0["to"]?.text ?? "?")" } }
}
