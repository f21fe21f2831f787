import NookActivities

/// `app-set`: the app's name, and whether it replaced one of that name (updated in place).
public struct AppSetAnswer: NookAnswer, NookWarningAnswer {
    public var name: String
    public var replaced: Bool
    public var warnings: [String]

    public init(name: String, replaced: Bool, warnings: [String] = []) { (self.name, self.replaced, self.warnings) = (name, replaced, warnings) }

    public var json: JSONValue { .object([("name", .string(name)), ("replaced", .bool(replaced))] + warningsMember(warnings)) }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        name = try reader.requiredString("name")
        replaced = try reader.bool("replaced") ?? false
        warnings = reader.warnings()
    }
}

/// `app-set-all`: each app set, in the request's order.
public struct AppSetAllAnswer: NookAnswer, NookWarningAnswer {
    public var apps: [AppSetAnswer]

    /// Each app's own warnings, named by the app (they are in each app's answer, not beside them).
    public var warnings: [String] { apps.flatMap { app in app.warnings.map { "\(app.name): \($0)" } } }

    public init(apps: [AppSetAnswer]) { self.apps = apps }

    public var json: JSONValue { .object([("apps", .array(apps.map(\.json)))]) }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        guard case .array(let items)? = reader.value("apps") else { throw ProtocolError(.missingField, field: "result.apps", "is required") }
        var apps: [AppSetAnswer] = []
        for item in items { apps.append(try AppSetAnswer(json: item)) }
        self.apps = apps
    }
}

/// `app-rm`: the app that was removed.
public struct AppRemoveAnswer: NookAnswer {
    public var removed: String

    public init(removed: String) { self.removed = removed }

    public var json: JSONValue { .object([("removed", .string(removed))]) }

    public init(json: JSONValue) throws(ProtocolError) {
        removed = try FieldReader(json, path: "result").requiredString("removed")
    }
}

/// `app-list`: every app, in the rotation's order.
public struct AppListAnswer: NookAnswer {
    public var apps: [AppState]

    public init(apps: [AppState]) { self.apps = apps }

    public var json: JSONValue { .object([("apps", .array(apps.map(\.json)))]) }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        guard case .array(let items)? = reader.value("apps") else { throw ProtocolError(.missingField, field: "result.apps", "is required (a list)") }
        var apps: [AppState] = []
        for (index, item) in items.enumerated() { apps.append(try AppState(json: item, path: "result.apps[\(index)]")) }
        self.apps = apps
    }
}

/// `app-show`: one app.
public struct AppShowAnswer: NookAnswer {
    public var app: AppState

    public init(app: AppState) { self.app = app }

    public var json: JSONValue { .object([("app", app.json)]) }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        guard let app = reader.value("app") else { throw ProtocolError(.missingField, field: "result.app", "is required") }
        self.app = try AppState(json: app, path: "result.app")
    }
}

/// `app-next`, `app-previous`, `app-switch`: the turn the rotation moved to (an app's name,
/// or nil for the home content), and whether a card holds the glass so it shows after it.
public struct AppSwitchAnswer: NookAnswer {
    public var showing: String?
    public var afterCard: Bool
    /// The mood light is on (M1): the turn shows once it is off.
    public var afterLight: Bool

    public init(showing: String?, afterCard: Bool = false, afterLight: Bool = false) {
        (self.showing, self.afterCard, self.afterLight) = (showing, afterCard, afterLight)
    }

    public var json: JSONValue {
        .object([("showing", showing.map(JSONValue.string) ?? .null)] + (afterCard ? [("afterCard", .bool(true))] : [])
                + (afterLight ? [("afterLight", .bool(true))] : []))
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        showing = try reader.string("showing")
        afterCard = try reader.bool("afterCard") ?? false
        afterLight = try reader.bool("afterLight") ?? false
    }
}
