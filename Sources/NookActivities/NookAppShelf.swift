/// The apps nookd keeps (A1): set, updated in place by name, removed, and run out by their
/// lifetimes. A plain value on the time it is given (wall-clock seconds, as the journal keeps
/// it, so a lifetime counts across a restart); it never reads a clock itself.
public struct NookAppShelf: Hashable, Sendable {
    /// One app and when it was last set.
    public struct Entry: Hashable, Sendable {
        public var app: NookApp
        /// Wall-clock seconds of the last set: its lifetime counts from here.
        public var setAt: Double
        /// Order of first arrival: the rotation's order among apps of the same position.
        public var arrival: UInt64

        public init(app: NookApp, setAt: Double, arrival: UInt64) {
            (self.app, self.setAt, self.arrival) = (app, setAt, arrival)
        }

        /// When its lifetime runs out, or nil.
        public var runsOutAt: Double? { app.lifetime.map { setAt + $0.nookSeconds } }

        /// Its lifetime ran out and it stays dimmed (``NookApp/LifetimeMode/stale``).
        public func isStale(at now: Double) -> Bool {
            guard app.lifetimeMode == .stale, let end = runsOutAt else { return false }
            return now >= end
        }
    }

    /// Why a set was refused.
    public enum Refusal: Error, Hashable, Sendable, CustomStringConvertible {
        case invalid(NookActivityValidationError)
        /// ``NookApp/Limits/count`` apps are kept already and this is a new name.
        case full(Int)

        /// The field at fault.
        public var field: String {
            switch self {
            case .invalid(let error): error.field
            case .full: "name"
            }
        }

        /// What is wrong, without the field (an answer names it as a field of its own).
        public var problem: String {
            switch self {
            case .invalid(let error): error.problem
            case .full(let count): "nookd keeps at most \(count) apps; remove one first (`nookctl app rm NAME`)"
            }
        }

        public var description: String { "\(field): \(problem)" }
    }

    public private(set) var entries: [String: Entry] = [:]
    private var nextArrival: UInt64 = 1

    public init() {}

    /// Sets `app` at `now`: a new one joins the rotation, one of the same name is replaced in
    /// place (keeping its turn). Returns the entry it replaced. Whether the caller may replace
    /// that one (U3) is the caller's to decide first.
    @discardableResult
    public mutating func set(_ app: NookApp, at now: Double) throws(Refusal) -> Entry? {
        do { try app.validate() } catch { throw .invalid(error) }
        let replaced = entries[app.name]
        if replaced == nil, entries.count >= NookApp.Limits.count { throw .full(NookApp.Limits.count) }
        let arrival = replaced?.arrival ?? nextArrival
        if replaced == nil { nextArrival += 1 }
        entries[app.name] = Entry(app: app, setAt: now, arrival: arrival)
        return replaced
    }

    /// Puts back an entry as it was recorded (a restart): its time and order kept.
    public mutating func restore(_ entry: Entry) {
        entries[entry.app.name] = entry
        nextArrival = max(nextArrival, entry.arrival + 1)
    }

    @discardableResult
    public mutating func remove(_ name: String) -> Entry? {
        entries.removeValue(forKey: name)
    }

    public subscript(name: String) -> Entry? { entries[name] }

    public var isEmpty: Bool { entries.isEmpty }
    public var count: Int { entries.count }

    /// The rotation's order: by position (those without one last), then by first arrival.
    public var ordered: [Entry] {
        entries.values.sorted { ($0.app.position ?? Int.max, $0.arrival) < ($1.app.position ?? Int.max, $1.arrival) }
    }

    /// What ran out by `now`: apps whose lifetime removes them are gone (returned); those that
    /// go stale stay, and are named if they turned stale after `since` (what to redraw).
    public mutating func runOut(at now: Double, since: Double) -> (removed: [Entry], staled: [String]) {
        var removed: [Entry] = []
        var staled: [String] = []
        for entry in entries.values {
            guard let end = entry.runsOutAt, end <= now else { continue }
            switch entry.app.lifetimeMode {
            case .remove:
                entries[entry.app.name] = nil
                removed.append(entry)
            case .stale:
                if end > since { staled.append(entry.app.name) }
            }
        }
        return (removed.sorted { $0.arrival < $1.arrival }, staled.sorted())
    }

    /// The next moment a lifetime runs out after `now` (wall-clock seconds), or nil.
    public func nextRunOut(after now: Double) -> Double? {
        entries.values.compactMap(\.runsOutAt).filter { $0 > now }.min()
    }
}
