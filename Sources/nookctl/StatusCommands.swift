#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import NookActivities
import NookProtocol
import NookSystem

extension OperationCommands {
    /// The commands that read what nookd and the glass are doing.
    static var statusCommands: [(NookOperation.Name, ParsableCommand.Type)] {
        [
        (.status, Status.self),
        (.watch, Watch.self),
        (.snapshot, Snapshot.self),
        ]
    }
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration.operation(Status.self, abstract: "Show what is on the glass, what is waiting, and the inputs.")
    @OptionGroup var connection: Connection
    func run() throws {
        connection.run(.status, as: StatusAnswer.self) { status in
            let display = status.display
            let switched = display.on == false ? ", switched off" + (display.wakesInS.map { " for \(DisplayAnswer.spoken($0)) more" } ?? "") : ""
            var lines = ["display: \(display.mode) (backend \(display.backend), rotation \(display.rotation)°, theme \(display.theme))\(switched)",
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
                let set = brightness.percentSet.map { ", set to \($0) % (nookctl display --brightness auto gives it back)" } ?? ""
                lines.append("brightness: \(brightness.state), \(percent) % (\(brightness.level) of \(brightness.maximum) on \(brightness.output))\(room)\(set)")
            }
            if let sound = status.sound { lines.append(sound.line) }
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
            if let apps = status.apps, apps.count > 0 {
                // Without apps there is no rotation to speak of (A2: nothing changes).
                let held = ["card": ", held by a card", "engaged": ", held while someone is engaged",
                            "mood-light": ", waiting while the mood light is on"][apps.rotation.rawValue] ?? ""
                lines.append("apps: \(apps.count), \(apps.showing.map { "showing \"\($0)\"" } ?? "none on the glass")\(held)")
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

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration.operation(
        Watch.self,
        abstract: "Print lifecycle events as they happen (enqueued, animateIn, presented, animateOut, hidden, rejected, requeued, updated, invoked), and status changes (engaged, suspended, home, foreground, indicators, sound).")
    @OptionGroup var connection: Connection
    func run() throws {
        do {
            let client = try NookClient(path: connection.path)
            _ = try client.request(Request(id: .number(1), operation: .watch), as: WatchAnswer.self)
            // nookd subscribes before it answers: from this line on no event is missed, which a
            // script that starts a watch and then acts waits for (Hardware/dev/demo does).
            if !connection.json {
                print("watching nookd's events")
                fflush(nil)
            }
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
