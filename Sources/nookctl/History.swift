#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import NookActivities
import NookProtocol

/// `nookctl history …` (U5): what ended, when, from whom, and what never reached the glass.
struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "What was shown (or not) and how it ended: list, show, replay or clear the history.",
        discussion: """
            nookd keeps every activity that ended (except --transient ones), bounded by \
            [history] max_entries and max_age. 'nookctl history --unseen' answers "what did I miss": \
            the ones that never reached the glass.
            """,
        subcommands: OperationCommands.subcommands(under: ["history"]),
        defaultSubcommand: HistoryList.self)
}

struct HistoryList: ParsableCommand {
    static let configuration = CommandConfiguration.operation(HistoryList.self, abstract: "List history entries, oldest first (the default).")
    @OptionGroup var connection: Connection
    @Option(help: "Only entries that ended within this long: 90s, 45m, 2h, 7d.") var since: String?
    @Option(help: "Only entries with this coalescing key.") var key: String?
    @Flag(help: "Only entries that never reached the glass.") var unseen = false
    @Option(help: "Only the newest N (after the other filters).") var limit: Int?

    func validate() throws {
        if let since, case .failure(let problem) = HistoryAge.seconds(since) { throw ValidationError("--since \(problem)") }
        if let key, key.isEmpty { throw ValidationError("--key must not be empty") }
        if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more; got \(limit)") }
    }

    func run() throws {
        let seconds = since.flatMap { try? HistoryAge.seconds($0).get() }
        let query = HistoryQuery(since: seconds, key: key, unseen: unseen, limit: limit)
        connection.run(fetching: { (client) throws(ClientError) in try client.history(query) }) { answer in
            guard !answer.entries.isEmpty else {
                return answer.total == 0 ? "the history is empty" : "no entries match (\(answer.total) in the history)"
            }
            let now = HistoryText.now()
            return answer.entries.map { HistoryText.line($0, now: now) }.joined(separator: "\n")
        }
    }
}

struct HistoryShow: ParsableCommand {
    static let configuration = CommandConfiguration.operation(HistoryShow.self, abstract: "Show one history entry whole.")
    @OptionGroup var connection: Connection
    @Argument(help: "The entry's number (42 or #42), or an activity id (its latest entry).") var entry: String
    func validate() throws { try HistoryText.check(entry) }
    func run() throws {
        connection.run(.historyShow(HistoryReference(entry)!), as: HistoryShowAnswer.self) { HistoryText.details($0.entry, now: HistoryText.now()) }
    }
}

struct HistoryReplay: ParsableCommand {
    static let configuration = CommandConfiguration.operation(
        HistoryReplay.self,
        abstract: "Enqueue a history entry's activity again, as a new activity; prints its id.")
    @OptionGroup var connection: Connection
    @Argument(help: "The entry's number (42 or #42), or an activity id (its latest entry).") var entry: String
    func validate() throws { try HistoryText.check(entry) }
    func run() throws {
        connection.run(.historyReplay(HistoryReference(entry)!), as: HistoryReplayAnswer.self) { $0.id.description }
    }
}

struct HistoryClear: ParsableCommand {
    static let configuration = CommandConfiguration.operation(
        HistoryClear.self,
        abstract: "Remove history entries: root and daemon.admin_group remove all; anyone else only the ones they sent.")
    @OptionGroup var connection: Connection
    func run() throws {
        connection.run(.historyClear, as: HistoryClearAnswer.self) { answer in
            let noun = answer.cleared == 1 ? "entry" : "entries"
            return answer.scope == .all ? "cleared \(answer.cleared) \(noun)"
                : "cleared \(answer.cleared) \(noun) you sent (only root and daemon.admin_group clear everyone's)"
        }
    }
}

/// How a person reads history entries in a terminal.
enum HistoryText {
    static func check(_ text: String) throws {
        if HistoryReference(text) == nil {
            throw ValidationError("'\(text)' is not a history entry: give its number (such as 42 or #42) or an activity id (a UUID)")
        }
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// `#12  14:03:05  completed  "Build finished" — all green  [key ci]`; entries that never
    /// reached the glass are marked `unseen`.
    static func line(_ entry: HistoryEntry, now: Double) -> String {
        var text = "#\(entry.number)  \(time(entry.endedAt, now: now))  \(entry.ending)\(entry.onGlass ? "" : ", unseen")  \"\(entry.activity.title)\""
        if let subtitle = entry.activity.subtitle { text += " — \(subtitle)" }
        var notes: [String] = []
        if entry.activity.priority != .normal { notes.append(entry.activity.priority.description) }
        if let key = entry.activity.coalescingKey { notes.append("key \(key)") }
        if let sender = entry.activity.sender { notes.append("from \(sender.name ?? "uid \(sender.uid)")") }
        // What the room changed of its sound (B3); a sound played as set is not news.
        if let sound = entry.sound, sound != "played" { notes.append("sound \(sound)") }
        if !notes.isEmpty { text += "  [\(notes.joined(separator: ", "))]" }
        return text
    }

    static func details(_ entry: HistoryEntry, now: Double) -> String {
        let activity = entry.activity
        var lines = ["entry #\(entry.number)", "id: \(activity.id)", "title: \(activity.title)"]
        if let subtitle = activity.subtitle { lines.append("subtitle: \(subtitle)") }
        if let icon = activity.systemImage { lines.append("icon: \(icon)") }
        lines.append("tint: \(activity.tint)")
        if let key = activity.coalescingKey { lines.append("key: \(key)") }
        lines.append("priority: \(activity.priority)")
        switch activity.presentation {
        case .timed: lines.append("dwell: \(activity.dwell.nookSeconds) s")
        case .blocker(let timeout): lines.append("blocker" + (timeout.map { ", timeout \($0.nookSeconds) s" } ?? ""))
        }
        if let progress = activity.progress { lines.append("progress: \(Int((progress * 100).rounded())) %") }
        lines.append("module: \(entry.module)")
        lines.append("sent by: \(activity.sender?.description ?? "nookd itself (no sender recorded)")")
        lines.append("enqueued: \(time(entry.enqueuedAt, now: now, full: true))")
        lines.append("shown: \(entry.shownAt.map { time($0, now: now, full: true) } ?? (entry.onGlass ? "before a restart of nookd" : "never"))")
        lines.append("ended: \(time(entry.endedAt, now: now, full: true)) (\(entry.ending))")
        lines.append("on the glass: \(entry.onGlass ? "yes" : "no")")
        if let sound = entry.sound { lines.append("sound: \(sound)") }
        return lines.joined(separator: "\n")
    }

    /// Local time: `14:03:05` today, `Nov 22 14:03:05` before, the full date with `full`.
    static func time(_ seconds: Double, now: Double, full: Bool = false) -> String {
        // The answer's decoder checked the range; a time_t conversion must never trap regardless.
        guard seconds.isFinite, abs(seconds) < 1e12, now.isFinite, abs(now) < 1e12 else { return "(time \(seconds) out of range)" }
        var when = time_t(seconds.rounded(.down)), today = time_t(now)
        var parts = tm(), todayParts = tm()
        localtime_r(&when, &parts)
        localtime_r(&today, &todayParts)
        let sameDay = parts.tm_year == todayParts.tm_year && parts.tm_yday == todayParts.tm_yday
        let format = full ? "%Y-%m-%d %H:%M:%S" : sameDay ? "%H:%M:%S" : "%b %d %H:%M:%S"
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, format, &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension OperationCommands {
    /// The history's commands (`nookctl history …`).
    static var historyCommands: [(NookOperation.Name, ParsableCommand.Type)] {
        [
        (.history, HistoryList.self),
        (.historyShow, HistoryShow.self),
        (.historyReplay, HistoryReplay.self),
        (.historyClear, HistoryClear.self),
        ]
    }
}
