import NookActivities
import NookConfig
import NookDisplay

/// A part of nookd (journal, history, screen, socket, …): it owns its section of the config,
/// its resources and its tasks, starts and stops them, and decides itself what a reload does
/// with its keys. ``Daemon`` is the list of services in start order and the wiring between
/// them; adding a feature is adding a service.
protocol DaemonService: AnyObject, Sendable {
    /// The part of ``DaemonConfig`` the service reads, typed.
    associatedtype Section: Equatable & Sendable

    /// The name the log and the start-order errors use.
    static var name: String { get }
    /// The services that must have started before this one (see ``ServiceOrder``), by type:
    /// a misspelt or removed service is a compile error, not a refused start. Every service
    /// the service is built from is here or in ``uses``: ``ServiceWiring`` records what each
    /// build asks for, and nookd refuses to start on a part given and not declared.
    static var needs: [any DaemonService.Type] { get }
    /// The services this one is built from that start after it: built first, handed over as
    /// values, started later (the state files check the journal's and the history's files
    /// before either opens them; the journal hands the apps the ones the last run kept).
    static var uses: [any DaemonService.Type] { get }
    /// The config keys the service owns: patterns of ``DaemonConfig/keys``.
    static var keys: [String] { get }
    /// Whether the service's keys apply at a reload (through ``apply(_:)``) or need a restart;
    /// a service with both kinds decides key by key in ``reload(from:to:changed:in:)``.
    static var appliesAtReload: Bool { get }

    static func section(of config: DaemonConfig) -> Section
    /// What a reload from `old` to `new` does with `changed` (every key whose value in the
    /// file changed): which of the service's keys apply at once and which wait for a restart.
    /// Pure, so every key's outcome can be tested without a display. A key whose change leaves
    /// the section as it was (a flag overrides it) is in neither.
    static func reload(from old: Section, to new: Section, changed: [String], in context: ReloadContext) -> ReloadDecision

    /// Starts the service's resources and tasks; a failure stops nookd's start.
    func start(_ section: Section) async throws(DaemonError)
    /// Stops what `start` started; called in the reverse order of the starts.
    func stop() async
    /// Applies the keys ``reload(from:to:in:)`` said apply at once.
    func apply(_ section: Section) async
}

extension DaemonService {
    static var uses: [any DaemonService.Type] { [] }
    static var keys: [String] { [] }
    static var appliesAtReload: Bool { false }
    func stop() async {}
    func apply(_ section: Section) async {}

    static func reload(from old: Section, to new: Section, changed: [String], in context: ReloadContext) -> ReloadDecision {
        guard old != new else { return ReloadDecision() }
        let mine = owned(changed)
        guard let declared = Self.self as? any DeclaresSettings.Type else {
            return appliesAtReload ? ReloadDecision(applied: mine) : ReloadDecision(needsRestart: mine)
        }
        // Each declared key as its declaration says; a key not yet declared as a service-wide rule.
        var decision = ReloadDecision()
        for key in mine {
            switch declared.declaration(of: key)?.reload ?? (appliesAtReload ? .applied : .restart) {
            case .applied: decision.applied.append(key)
            case .restart: decision.needsRestart.append(key)
            }
        }
        return decision
    }

    /// The keys of `changed` that are this service's.
    static func owned(_ changed: [String]) -> [String] {
        let table = ConfigKeyTable(keys)
        return changed.filter(table.contains)
    }

    func start(with config: DaemonConfig) async throws(DaemonError) { try await start(Self.section(of: config)) }
    func apply(config: DaemonConfig) async { await apply(Self.section(of: config)) }
    static func decide(from old: DaemonConfig, to new: DaemonConfig, changed: [String], in context: ReloadContext) -> ReloadDecision {
        reload(from: section(of: old), to: section(of: new), changed: changed, in: context)
    }
}

/// A service without config keys.
struct NoSection: Equatable, Sendable {}

extension DaemonService where Section == NoSection {
    static func section(of config: DaemonConfig) -> NoSection { NoSection() }
}

/// What a reload needs to know beyond the config: the display nookd runs on.
struct ReloadContext: Sendable {
    var displaySize: PixelSize
}

extension DaemonConfig {
    /// nookd's keys whose value in the file differs between `self` and `other` (set in one
    /// and not the other included), sorted.
    func changedKeys(to other: DaemonConfig) -> [String] {
        Set(fileValues.keys).union(other.fileValues.keys).filter { fileValues[$0] != other.fileValues[$0] }.sorted()
    }
}

/// The keys a reload changed, by outcome.
struct ReloadDecision: Equatable, Sendable {
    /// Keys whose new value is in effect once the reload ends.
    var applied: [String] = []
    /// Keys that keep their old value until nookd restarts, each with why where it helps.
    var needsRestart: [String] = []

    /// The log line of a reload of `path`: every changed key, applied or to restart for.
    func note(reloading path: String) -> String {
        let applied = applied.isEmpty ? "" : " (applied \(applied.joined(separator: ", ")))"
        let restart = needsRestart.isEmpty ? "" : "; restart nookd to apply \(needsRestart.joined(separator: ", "))"
        return "SIGHUP: reloaded \(path)\(applied)\(restart)"
    }

    static func + (left: ReloadDecision, right: ReloadDecision) -> ReloadDecision {
        ReloadDecision(applied: left.applied + right.applied, needsRestart: left.needsRestart + right.needsRestart)
    }
}

/// The start order as data: services start in list order, stop in reverse, and a list in
/// which a service comes before one it needs (or needs one that is not there) is refused, as is
/// one in which a service it uses (built from, started later) starts before it.
enum ServiceOrder {
    static func check(_ services: [any DaemonService.Type]) -> String? {
        var started: Set<String> = []
        let all = Set(services.map { $0.name })
        for service in services {
            if started.contains(service.name) { return "service \(service.name) is listed twice" }
            for need in service.needs.map({ $0.name }) {
                guard all.contains(need) else { return "service \(service.name) needs \(need), which is not in the list" }
                guard started.contains(need) else { return "service \(service.name) would start before \(need), which it needs" }
            }
            for use in service.uses.map({ $0.name }) {
                guard all.contains(use) else { return "service \(service.name) uses \(use), which is not in the list" }
                guard !started.contains(use) else { return "service \(service.name) uses \(use), which starts before it: name it in needs" }
            }
            started.insert(service.name)
        }
        return nil
    }

    /// What is wrong with what `service` was given (the names of the services its build asked
    /// for) against what it declares: each given service is one it needs or uses, and each it
    /// uses is given. Nil when they agree.
    static func checkGiven(_ service: any DaemonService.Type, given: Set<String>) -> String? {
        let (needs, uses) = (Set(service.needs.map { $0.name }), Set(service.uses.map { $0.name }))
        if let undeclared = given.subtracting(needs).subtracting(uses).sorted().first {
            return "service \(service.name) is given \(undeclared) but names it in neither needs nor uses"
        }
        if let stale = uses.subtracting(given).sorted().first { return "service \(service.name) uses \(stale) but is not given it" }
        return nil
    }
}

/// The namespace of nookd's services; ``DaemonParts`` lists them in start order.
enum Service {}

/// How to stop what a service started: run once, the last added first.
final class StopActions: Sendable {
    private let actions = Locked<[@Sendable () async -> Void]>([])

    func add(_ action: @escaping @Sendable () async -> Void) {
        actions.withLock { $0.append(action) }
    }

    func run() async {
        let all = actions.withLock { list in
            defer { list = [] }
            return list
        }
        for action in all.reversed() { await action() }
    }
}

/// A service whose queue puts cards on the glass: at a stop (N2) each halts, then all quiesce at
/// once, before any service stops, so the cards on the glass end through the normal path.
protocol QuiescesAtStop: DaemonService {
    /// Takes on nothing new of its own, before any queue quiesces.
    func halt()
    /// Returns once its queues are quiescent.
    func quiesce() async
}

extension QuiescesAtStop {
    func halt() {}
}
