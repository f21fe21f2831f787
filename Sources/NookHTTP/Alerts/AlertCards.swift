import NookActivities
import NookProtocol

/// A group of alerts as one card (H3), by the tables in docs/publishing.md: keyed by the
/// group's identity, so every later notification of the group changes that card in place (U1);
/// one card saying how many alerts fire, never one card per alert; the highest severity among
/// them sets priority, tint, icon and how long it stays; the group resolved ends the card.
public enum AlertCards {
    /// What to do for one notification.
    public enum Plan: Sendable, Equatable {
        /// Show or update the group's card; `digest` identifies its content, so an unchanged
        /// repeat is recognised.
        case show(PublishedCard, digest: String)
        /// The group resolved: end the card with this key.
        case end(key: String)
    }

    /// One row of the severity table.
    public struct SeverityRow: Sendable, Equatable {
        public var rank: Int
        public var priority: NookActivityPriority
        public var tint: NookTint
        public var symbol: String
        public var presentation: NookActivity.Presentation
        public var dwell: Duration
    }

    /// The `severity` label (lower case) → the card. A critical alert stays until it resolves
    /// or a person dismisses it; the others are timed.
    public static func row(forSeverity severity: String?) -> SeverityRow {
        switch severity?.lowercased() {
        case "critical", "crit", "emergency", "emerg", "alert", "page", "fatal", "disaster", "p1":
            SeverityRow(rank: 4, priority: .high, tint: .named(.red), symbol: "xmark.octagon", presentation: .blocker(timeout: nil), dwell: NookActivity.defaultDwell)
        case "error", "err", "high", "major", "p2":
            SeverityRow(rank: 3, priority: .high, tint: .named(.red), symbol: "exclamationmark.circle", presentation: .timed, dwell: .seconds(30))
        case "warning", "warn", "medium", "average", "minor", "p3":
            SeverityRow(rank: 2, priority: .normal, tint: .named(.orange), symbol: "exclamationmark.triangle", presentation: .timed, dwell: .seconds(10))
        case "info", "informational", "information", "notice", "low", "none", "ok", "p4", "p5":
            SeverityRow(rank: 0, priority: .low, tint: .named(.blue), symbol: "info.circle", presentation: .timed, dwell: .seconds(5))
        default:
            SeverityRow(rank: 1, priority: .normal, tint: .named(.orange), symbol: "bell", presentation: .timed, dwell: .seconds(10))
        }
    }

    /// The card's key: the source and a digest of the receiver and group key, short and the
    /// same for every notification of the group.
    public static func key(for notification: AlertNotification) -> String {
        "\(notification.source.rawValue)/\(PublishText.digest(notification.receiver + "\u{0}" + notification.groupKey))"
    }

    public static func plan(for notification: AlertNotification, id: NookActivityID, module: String?) -> Plan {
        let key = key(for: notification)
        // One alert once, however often the body lists it; ordered by when it started, so a
        // repeat of the same group reads the same.
        var seen = Set<String>()
        let firing = notification.alerts.filter { $0.firing && seen.insert($0.fingerprint).inserted }
            .sorted { ($0.startsAt, $0.fingerprint) < ($1.startsAt, $1.fingerprint) }
        guard notification.firing, !firing.isEmpty else { return .end(key: key) }
        let count = firing.count + notification.truncatedAlerts
        let severity = firing.map { row(forSeverity: $0.label("severity")) }.max { $0.rank < $1.rank } ?? row(forSeverity: nil)
        let name = notification.commonLabels.first { $0.0 == "alertname" }?.1
            ?? (notification.groupLabels.isEmpty ? nil : notification.groupLabels.map(\.1).joined(separator: " "))
        var title: String
        var subtitle: String?
        if count == 1, let alert = firing.first {
            title = alert.annotation("summary") ?? alert.annotation("title") ?? alert.label("alertname") ?? name ?? "Alert firing"
            subtitle = alert.annotation("description") ?? alert.annotation("message") ?? describe(alert, leaving: ["alertname", "severity"])
        } else {
            title = "\(name ?? "Alerts"): \(count) firing"
            let common = Set(notification.commonLabels.map(\.0))
            let summaries = firing.compactMap { $0.annotation("summary") }
            let distinct = Set(summaries).count == summaries.count && summaries.count == firing.count
            subtitle = firing.map { alert in
                distinct ? alert.annotation("summary") ?? "" : describe(alert, leaving: common.union(["alertname", "severity"]), valuesOnly: true) ?? alert.fingerprint
            }.joined(separator: ", ")
            if notification.truncatedAlerts > 0 { subtitle! += " and \(notification.truncatedAlerts) more" }
        }
        var notes: [String] = []
        title = PublishText.collapsed(title)
        subtitle = subtitle.map(PublishText.collapsed).flatMap { $0.isEmpty ? nil : $0 }
        let (fittedTitle, fittedSubtitle) = PublishText.fitted(title: title.isEmpty ? "Alert firing" : title, subtitle: subtitle, notes: &notes)
        let activity = NookActivity(id: id, coalescingKey: key, priority: severity.priority, title: fittedTitle, subtitle: fittedSubtitle,
                                    systemImage: severity.symbol, tint: severity.tint, dwell: severity.dwell, presentation: severity.presentation)
        let card = PublishedCard(activity: activity, module: module, updatesInPlace: true, notes: notes)
        return .show(card, digest: PublishText.digest(ActivityChanges.replacing(with: card.activity).json.serialized))
    }

    /// The alert's labels but `leaving`, as `name=value, …` (or the values alone), in the order sent.
    static func describe(_ alert: AlertNotification.Alert, leaving: Set<String>, valuesOnly: Bool = false) -> String? {
        let shown = alert.labels.filter { !leaving.contains($0.0) && !$0.0.hasPrefix("__") }
        guard !shown.isEmpty else { return nil }
        return shown.map { valuesOnly ? $0.1 : "\($0.0)=\($0.1)" }.joined(separator: valuesOnly ? " " : ", ")
    }
}

/// The content last sent for each alert card's key, so a repeat of an unchanged group changes
/// nothing, not even a card that has since ended (H3). Bounded: the least recently sent key
/// is forgotten first; a forgotten group's next repeat shows its card again.
public final class AlertCardMemory {
    public let capacity: Int
    private var digests: [String: String] = [:]
    private var order: [String] = []

    public init(capacity: Int = 1024) { self.capacity = max(1, capacity) }

    public var count: Int { digests.count }

    public func isUnchanged(key: String, digest: String) -> Bool { digests[key] == digest }

    public func remember(key: String, digest: String) {
        if digests.updateValue(digest, forKey: key) != nil { order.removeAll { $0 == key } }
        order.append(key)
        while order.count > capacity { digests[order.removeFirst()] = nil }
    }

    public func forget(key: String) {
        guard digests.removeValue(forKey: key) != nil else { return }
        order.removeAll { $0 == key }
    }

    /// Forgets every key `matches` picks (a group as every token remembers it).
    public func forget(where matches: (String) -> Bool) {
        let gone = digests.keys.filter(matches)
        guard !gone.isEmpty else { return }
        for key in gone { digests[key] = nil }
        order.removeAll(where: matches)
    }
}
