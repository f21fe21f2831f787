import NookActivities

/// The apps the idle display rotates through (A1–A3) and their rotation.
public struct AppOperations: Sendable {
    typealias Row = NookOperation.Row

    /// Sets an app (A1): a new one joins the rotation, one of the same name is updated in place.
    public let appSet = Row<NookApp>(
        .appSet, fields: ["app", "sender"], answer: AppSetAnswer.self, command: .grouped("app", "set"), scope: .own,
        make: { .appSet($0) },
        decode: { reader throws(ProtocolError) in
            guard let payload = reader.value("app") else { throw ProtocolError(.missingField, field: "app", "is required") }
            return try AppPayload.decode(payload)
        },
        encode: { [("app", AppPayload.encode($0))] })

    /// Sets several apps (an AWTRIX array: APP0, APP1, …) in one step: all of them, or none and
    /// the reason the first that could not be set gives.
    public let appSetAll = Row<[NookApp]>(
        .appSetAll, fields: ["apps", "sender"], answer: AppSetAllAnswer.self, command: .bridgesOnly, scope: .own,
        make: { .appSetAll($0) },
        decode: { reader throws(ProtocolError) in
            guard let payload = reader.value("apps") else { throw ProtocolError(.missingField, field: "apps", "is required") }
            guard case .array(let items) = payload else { throw ProtocolError(.wrongType, field: "apps", "must be an array of apps, got \(payload.typeName)") }
            guard (1...NookApp.Limits.count).contains(items.count) else {
                throw ProtocolError(.invalid, field: "apps", "must hold 1 to \(NookApp.Limits.count) apps (all nookd keeps), got \(items.count)")
            }
            var apps: [NookApp] = []
            var names: Set<String> = []
            for (index, item) in items.enumerated() {
                let app = try AppPayload.decode(item, path: "apps[\(index)]")
                guard names.insert(app.name).inserted else {
                    throw ProtocolError(.invalid, field: "apps[\(index)].name", "'\(app.name)' is named twice in the array")
                }
                apps.append(app)
            }
            return apps
        },
        encode: { [("apps", .array($0.map(AppPayload.encode)))] })

    /// Removes the named app (its sender, root or the admin group, U3).
    public let appRemove = Row<String>(
        .appRemove, fields: ["name", "sender"], answer: AppRemoveAnswer.self, command: .grouped("app", "rm"), scope: .own,
        make: { .appRemove($0) }, decode: appName, encode: nameField)

    /// Every app, in the rotation's order.
    public let appList = Row<Void>(
        .appList, answer: AppListAnswer.self, command: .grouped("app", "list"), reads: true,
        // Every app at its largest (text, fragments, icon path, chart, sender: 8 KiB with escapes).
        answerBytes: NookApp.Limits.count * (8 << 10), .appList)

    public let appShow = Row<String>(
        .appShow, fields: ["name"], answer: AppShowAnswer.self, command: .grouped("app", "show"),
        reads: { _ in true }, answerBytes: { _ in 8 << 10 },
        make: { .appShow($0) }, decode: appName, encode: nameField)

    /// The rotation moves on to its next turn (A2), or back to the one before, or to the named app.
    public let appNext = Row<Void>(.appNext, answer: AppSwitchAnswer.self, command: .grouped("app", "next"), .appNext)

    public let appPrevious = Row<Void>(.appPrevious, answer: AppSwitchAnswer.self, command: .grouped("app", "previous"), .appPrevious)

    public let appSwitch = Row<String>(
        .appSwitch, fields: ["name"], answer: AppSwitchAnswer.self, command: .grouped("app", "switch"),
        make: { .appSwitch($0) }, decode: appName, encode: nameField)
}

@Sendable private func appName(_ reader: FieldReader) throws(ProtocolError) -> String { try reader.appName() }

@Sendable private func nameField(_ name: String) -> [(String, JSONValue)] { [("name", .string(name))] }
