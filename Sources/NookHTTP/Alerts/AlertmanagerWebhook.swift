import NookProtocol

/// One webhook notification of a group of alerts (H3), as Prometheus Alertmanager sends it
/// (version 4 of its webhook body) and as Grafana's webhook contact point sends it (the same
/// body with `title`, `state`, `message` and `orgId` added): the group's identity, whether it
/// fires, and each alert with its own identity (the fingerprint).
public struct AlertNotification: Sendable, Equatable {
    public enum Source: String, Sendable { case alertmanager, grafana }

    public struct Alert: Sendable, Equatable {
        public var firing: Bool
        public var labels: [(String, String)]
        public var annotations: [(String, String)]
        /// The alert's identity across notifications; made from its labels when absent.
        public var fingerprint: String
        public var startsAt: String
        /// When it ended, for a resolved alert; Go's zero time (`0001-01-01T00:00:00Z`) or
        /// empty for a firing one, as Alertmanager does not show an end not yet reached.
        public var endsAt: String = ""

        public func label(_ name: String) -> String? { labels.first { $0.0 == name }?.1 }
        public func annotation(_ name: String) -> String? { annotations.first { $0.0 == name }?.1 }

        public static func == (lhs: Alert, rhs: Alert) -> Bool {
            lhs.firing == rhs.firing && lhs.fingerprint == rhs.fingerprint && lhs.startsAt == rhs.startsAt && lhs.endsAt == rhs.endsAt
                && lhs.labels.elementsEqual(rhs.labels) { $0 == $1 } && lhs.annotations.elementsEqual(rhs.annotations) { $0 == $1 }
        }
    }

    public var source: Source
    public var receiver: String
    /// The group's identity: Alertmanager's `groupKey` (made from the receiver and the group
    /// labels when a sender leaves it out).
    public var groupKey: String
    /// `status: firing` (false: `resolved`, every alert of the group has ended).
    public var firing: Bool
    public var groupLabels: [(String, String)]
    public var commonLabels: [(String, String)]
    public var commonAnnotations: [(String, String)]
    public var alerts: [Alert]
    /// Alerts Alertmanager left out of the body (`max_alerts`), counted all the same.
    public var truncatedAlerts: Int

    public static func == (lhs: AlertNotification, rhs: AlertNotification) -> Bool {
        lhs.source == rhs.source && lhs.receiver == rhs.receiver && lhs.groupKey == rhs.groupKey && lhs.firing == rhs.firing
            && lhs.alerts == rhs.alerts && lhs.truncatedAlerts == rhs.truncatedAlerts
            && lhs.groupLabels.elementsEqual(rhs.groupLabels) { $0 == $1 } && lhs.commonLabels.elementsEqual(rhs.commonLabels) { $0 == $1 }
            && lhs.commonAnnotations.elementsEqual(rhs.commonAnnotations) { $0 == $1 }
    }

    /// Reads the body; the error names the field at fault (`alerts[2].labels`).
    public static func decode(_ body: [UInt8], source: Source) -> Result<AlertNotification, HTTPAPIError> {
        do throws(HTTPAPIError) {
            let value: JSONValue
            do { value = try JSONValue.parse(body) } catch {
                throw HTTPAPIError(status: 400, code: "malformed_json", field: "body", message: "the webhook body is not JSON \(error)")
            }
            guard case .object = value else {
                throw HTTPAPIError(status: 400, code: "invalid_field", field: "body", message: "must be a JSON object, got \(value.typeName)")
            }
            let reader = WebhookReader(value: value, path: "")
            guard let alerts = value["alerts"], alerts != .null else {
                let legacy = value["ruleName"] != nil || value["evalMatches"] != nil
                throw HTTPAPIError(status: 422, code: "missing_field", field: "alerts",
                                   message: legacy ? "is required: this is Grafana's legacy alerting body; use a unified alerting webhook contact point"
                                                   : "is required: the alerts of the group")
            }
            guard case .array(let items) = alerts else {
                throw HTTPAPIError(status: 422, code: "invalid_field", field: "alerts", message: "must be an array, got \(alerts.typeName)")
            }
            let status = try reader.string("status") ?? "firing"
            guard status == "firing" || status == "resolved" else {
                throw HTTPAPIError(status: 422, code: "invalid_field", field: "status", message: "must be firing or resolved, got '\(status)'")
            }
            let receiver = try reader.string("receiver") ?? ""
            let groupLabels = try reader.labels("groupLabels")
            var notification = AlertNotification(
                source: source, receiver: receiver, groupKey: "", firing: status == "firing", groupLabels: groupLabels,
                commonLabels: try reader.labels("commonLabels"), commonAnnotations: try reader.labels("commonAnnotations"),
                alerts: [], truncatedAlerts: 0)
            notification.groupKey = try reader.string("groupKey")
                ?? receiver + ":" + groupLabels.sorted { $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }.joined(separator: ",")
            if let truncated = try reader.number("truncatedAlerts") {
                guard truncated >= 0, truncated < 1e9, truncated == truncated.rounded() else {
                    throw HTTPAPIError(status: 422, code: "invalid_field", field: "truncatedAlerts", message: "must be a whole number from 0, got \(truncated)")
                }
                notification.truncatedAlerts = Int(truncated)
            }
            for (index, item) in items.enumerated() {
                let path = "alerts[\(index)]"
                guard case .object = item else {
                    throw HTTPAPIError(status: 422, code: "invalid_field", field: path, message: "must be a JSON object, got \(item.typeName)")
                }
                let alert = WebhookReader(value: item, path: path)
                let alertStatus = try alert.string("status") ?? status
                guard alertStatus == "firing" || alertStatus == "resolved" else {
                    throw HTTPAPIError(status: 422, code: "invalid_field", field: path + ".status", message: "must be firing or resolved, got '\(alertStatus)'")
                }
                let labels = try alert.labels("labels")
                let fingerprint = try alert.string("fingerprint")
                    ?? PublishText.digest(labels.sorted { $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }.joined(separator: "\u{0}"))
                notification.alerts.append(Alert(firing: alertStatus == "firing", labels: labels, annotations: try alert.labels("annotations"),
                                                 fingerprint: fingerprint, startsAt: try alert.string("startsAt") ?? "",
                                                 endsAt: try alert.string("endsAt") ?? ""))
            }
            return .success(notification)
        } catch {
            return .failure(error)
        }
    }
}

/// Typed reads of a webhook body's fields, each error naming the field's path.
private struct WebhookReader {
    let value: JSONValue
    let path: String

    func name(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    func string(_ key: String) throws(HTTPAPIError) -> String? {
        switch value[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?: throw HTTPAPIError(status: 422, code: "invalid_field", field: name(key), message: "must be a string, got \(other.typeName)")
        }
    }

    func number(_ key: String) throws(HTTPAPIError) -> Double? {
        switch value[key] {
        case nil, .null?: return nil
        case .number(let number)?: return number
        case let other?: throw HTTPAPIError(status: 422, code: "invalid_field", field: name(key), message: "must be a number, got \(other.typeName)")
        }
    }

    /// A label set: an object of strings (a number or boolean value is read as its text).
    func labels(_ key: String) throws(HTTPAPIError) -> [(String, String)] {
        switch value[key] {
        case nil, .null?: return []
        case .object(let members)?:
            return try members.map { (member) throws(HTTPAPIError) in
                switch member.1 {
                case .string(let text): return (member.0, text)
                case .number, .bool: return (member.0, member.1.serialized)
                default:
                    throw HTTPAPIError(status: 422, code: "invalid_field", field: name(key) + "." + member.0, message: "must be a string, got \(member.1.typeName)")
                }
            }
        case let other?: throw HTTPAPIError(status: 422, code: "invalid_field", field: name(key), message: "must be an object of strings, got \(other.typeName)")
        }
    }
}
