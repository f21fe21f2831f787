import NookActivities
import NookProtocol

/// One line of the activity journal: `CRC32 JSON\n`, the CRC (8 hex digits, IEEE) over the JSON.
enum JournalRecord: Sendable {
    case added(ActivityJournal.Entry)
    case shown(NookActivityID)
    case ended(NookActivityID)
    /// A card snoozed by a long press (T2): its showing is over, and it comes back at `until`.
    /// One record, so no prefix of the log ends the card without keeping its snooze.
    case snoozed(ActivityJournal.Snooze)
    /// The snooze is over without the card coming back (its sender cancelled it, or it could
    /// not come back). A card that came back needs none: its own arrival ends the snooze.
    case unsnoozed(NookActivityID)
    /// An app set or updated (A1), whole, with when it was set (its lifetime counts from then).
    case appSet(NookAppShelf.Entry)
    /// Several apps set in one step (`app-set-all`, an AWTRIX array): one record, so no prefix
    /// of the log holds part of the array.
    case appsSet([NookAppShelf.Entry])
    /// An app removed, by a request or by its lifetime.
    case appRemoved(String)

    /// The length of the shortest record (an end: every id has the same length).
    static let shortestBytes = JournalRecord.ended(NookActivityID()).encoded().count

    func encoded() -> [UInt8] {
        let json: JSONValue = switch self {
        case .added(let entry):
            .object([("seq", .number(Double(entry.sequence))), ("module", .string(entry.module.rawValue)),
                     ("at", .number(entry.enqueuedAt)), ("activity", ActivityPayload.encode(entry.activity))]
                    + (entry.activity.sender.map { [("sender", SenderPayload.encode($0))] } ?? []))
        case .shown(let id): .object([("shown", .string(id.description))])
        case .ended(let id): .object([("ended", .string(id.description))])
        case .snoozed(let snooze):
            .object([("snoozed", .string(snooze.entry.activity.id.description)), ("until", .number(snooze.until)),
                     ("module", .string(snooze.entry.module.rawValue)), ("at", .number(snooze.entry.enqueuedAt)),
                     ("activity", ActivityPayload.encode(snooze.entry.activity))]
                    + (snooze.entry.activity.sender.map { [("sender", SenderPayload.encode($0))] } ?? []))
        case .unsnoozed(let id): .object([("unsnoozed", .string(id.description))])
        case .appSet(let entry): Self.appObject(entry)
        case .appsSet(let entries): .object([("apps", .array(entries.map(Self.appObject)))])
        case .appRemoved(let name): .object([("appRemoved", .string(name))])
        }
        return DurableLine.encoded(json.serializedBytes)
    }

    /// A line without its newline; the failure says what is wrong with it.
    static func decode(_ line: some Collection<UInt8>) -> Result<JournalRecord, JournalDamage> {
        let body: ArraySlice<UInt8>
        switch DurableLine.body(of: line, what: "a record") {
        case .success(let checked): body = checked
        case .failure(let damage): return .failure(damage)
        }
        let json: JSONValue
        do { json = try JSONValue.parse(body) } catch { return .failure(JournalDamage("not JSON: \(error)")) }
        func id(_ key: String) -> NookActivityID? { json[key]?.text.flatMap { NookActivityID($0) } }
        if let shown = id("shown") { return .success(.shown(shown)) }
        if let ended = id("ended") { return .success(.ended(ended)) }
        if let woke = id("unsnoozed") { return .success(.unsnoozed(woke)) }
        if json["snoozed"] != nil { return decodeSnooze(json) }
        if let name = json["appRemoved"]?.text { return .success(.appRemoved(name)) }
        if json["app"] != nil { return decodeApp(json).map(JournalRecord.appSet) }
        if case .array(let items)? = json["apps"] {
            var entries: [NookAppShelf.Entry] = []
            for (index, item) in items.enumerated() {
                switch decodeApp(item) {
                case .success(let entry): entries.append(entry)
                case .failure(let damage): return .failure(JournalDamage("apps[\(index)]: \(damage)"))
                }
            }
            return .success(.appsSet(entries))
        }
        guard let sequence = json["seq"]?.numberValue, sequence >= 1, sequence < 1e15,
              let module = json["module"]?.text, let at = json["at"]?.numberValue, let payload = json["activity"] else {
            return .failure(JournalDamage("not a journal record"))
        }
        // Wall-clock seconds up to the year 9999: recovery subtracts it from now.
        guard at >= 0, at <= 253_402_300_799 else { return .failure(JournalDamage("at: must be from 0 to 253402300799 (wall-clock seconds), got \(at)")) }
        do {
            var activity = try ActivityPayload.decode(payload, clampingText: true)
            activity.sender = json["sender"].flatMap(SenderPayload.decode)
            return .success(.added(ActivityJournal.Entry(sequence: UInt64(sequence), module: NookModuleID(module), activity: activity,
                                                         enqueuedAt: at, wasShown: false)))
        } catch {
            return .failure(JournalDamage("activity: \(error)"))
        }
    }
}

extension JournalRecord {
    private static func decodeSnooze(_ json: JSONValue) -> Result<JournalRecord, JournalDamage> {
        guard let id = json["snoozed"]?.text.flatMap({ NookActivityID($0) }) else { return .failure(JournalDamage("snoozed: not an activity id")) }
        guard let module = json["module"]?.text, let at = json["at"]?.numberValue, let until = json["until"]?.numberValue,
              let payload = json["activity"] else {
            return .failure(JournalDamage("not a snooze record"))
        }
        for (name, value) in [("at", at), ("until", until)] where !(value >= 0 && value <= 253_402_300_799) {
            return .failure(JournalDamage("\(name): must be from 0 to 253402300799 (wall-clock seconds), got \(value)"))
        }
        do {
            var activity = try ActivityPayload.decode(payload, clampingText: true)
            guard activity.id == id else { return .failure(JournalDamage("snoozed: \(id) is not its activity's id \(activity.id)")) }
            activity.sender = json["sender"].flatMap(SenderPayload.decode)
            let entry = ActivityJournal.Entry(sequence: 1, module: NookModuleID(module), activity: activity, enqueuedAt: at, wasShown: false)
            return .success(.snoozed(ActivityJournal.Snooze(entry: entry, until: until)))
        } catch {
            return .failure(JournalDamage("activity: \(error)"))
        }
    }
}

extension JournalRecord {
    /// An app as its record (or an array's record) holds it.
    private static func appObject(_ entry: NookAppShelf.Entry) -> JSONValue {
        .object([("app", AppPayload.encode(entry.app)), ("setAt", .number(entry.setAt)), ("arrival", .number(Double(entry.arrival)))]
                + (entry.app.sender.map { [("sender", SenderPayload.encode($0))] } ?? []))
    }

    /// An app's record; a journal of an nookd before apps has none, and reads as before.
    private static func decodeApp(_ json: JSONValue) -> Result<NookAppShelf.Entry, JournalDamage> {
        guard let payload = json["app"], let setAt = json["setAt"]?.numberValue, let arrival = json["arrival"]?.numberValue,
              arrival >= 1, arrival < 1e15, arrival == arrival.rounded() else {
            return .failure(JournalDamage("not an app record"))
        }
        guard setAt >= 0, setAt <= 253_402_300_799 else {
            return .failure(JournalDamage("setAt: must be from 0 to 253402300799 (wall-clock seconds), got \(setAt)"))
        }
        do {
            var app = try AppPayload.decode(payload)
            app.sender = json["sender"].flatMap(SenderPayload.decode)
            return .success(NookAppShelf.Entry(app: app, setAt: setAt, arrival: UInt64(arrival)))
        } catch {
            return .failure(JournalDamage("app: \(error)"))
        }
    }
}

struct JournalDamage: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
