import NookProtocol

/// The rotation's apps as LaMetric lists its apps, and its next and previous turns (M4).
enum LaMetricApps {
    /// nookd's `app-list` as LaMetric's `{PACKAGE: {package, title, vendor, version, widgets}}`.
    static func listed(_ answer: JSONValue) -> JSONValue {
        .object((answer["apps"]?.items ?? []).compactMap { app in
            guard let name = app["name"]?.text else { return nil }
            let package = "org.nook.app." + name
            return (package, .object([("package", .string(package)), ("title", .string(name)), ("vendor", .string("Nook")),
                                      ("version", .string("1.0.0")), ("version_code", .string("1")), ("widgets", .object([]))]))
        })
    }

    /// A turn of the rotation, answered as LaMetric answers a switch: `{"success": {"data": …}}`
    /// with the app now showing.
    static func turn(_ operation: NookOperation, _ exchange: any HTTPExchange, _ nookd: any NookdCalls) {
        nookd.ask(operation, for: exchange) { answer in
            exchange.respond(LaMetricRoutes.success(data: .object([("showing", answer["showing"] ?? .null)]), notes: []))
        }
    }
}
