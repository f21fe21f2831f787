import NookProtocol

/// nook-http's native JSON API (H1): create, update, dismiss and cancel activities, set and
/// remove apps and turn their rotation (A3), and read status, pending and history, each mapped onto one or a few of nookd's socket operations.
/// Documented in docs/nook-http.openapi.json, which the tests hold these routes to.
public enum NativeAPIRoutes {
    /// - Parameter order: runs the creates and deletes of one key one after another (shared
    ///   with the other routes that use keys).
    public static func routes(order: CardKeyOrder = CardKeyOrder()) -> [HTTPRoute] {
        [
            HTTPRoute("POST", "/api/v1/activities", scope: .publish) { NativeAPIActivities.create($0, $1, $2, order: order) },
            HTTPRoute("GET", "/api/v1/activities", scope: .read, handler: NativeAPIActivities.pending),
            HTTPRoute("DELETE", "/api/v1/activities", scope: .publish) { NativeAPIActivities.cancelByKey($0, $1, $2, order: order) },
            HTTPRoute("GET", "/api/v1/activities/{id}", scope: .read, handler: NativeAPIActivities.one),
            HTTPRoute("PATCH", "/api/v1/activities/{id}", scope: .publish, handler: NativeAPIActivities.update),
            HTTPRoute("DELETE", "/api/v1/activities/{id}", scope: .publish, handler: NativeAPIActivities.cancel),
            HTTPRoute("POST", "/api/v1/activities/{id}/dismiss", scope: .publish, handler: NativeAPIActivities.dismiss),
            HTTPRoute("GET", "/api/v1/status", scope: .read, handler: NativeAPIDevice.status),
            HTTPRoute("GET", "/api/v1/history", scope: .read, handler: NativeAPIHistory.history),
            HTTPRoute("POST", "/api/v1/suspend", scope: .admin, handler: NativeAPIDevice.suspend),
            HTTPRoute("POST", "/api/v1/resume", scope: .admin, handler: NativeAPIDevice.resume),
            HTTPRoute("PUT", "/api/v1/quiet", scope: .admin, handler: NativeAPIDevice.quiet),
            HTTPRoute("GET", "/api/v1/display", scope: .read) { exchange, _, nookd in
                nookd.ask(.display(DisplaySetting()), for: exchange) { answer in exchange.respond(.json(answer)) }
            },
            HTTPRoute("PUT", "/api/v1/display", scope: .admin, handler: NativeAPIDevice.display),
            HTTPRoute("GET", "/api/v1/apps", scope: .read, handler: NativeAPIApps.list),
            HTTPRoute("GET", "/api/v1/apps/{name}", scope: .read, handler: NativeAPIApps.one),
            HTTPRoute("PUT", "/api/v1/apps/{name}", scope: .publish, handler: NativeAPIApps.set),
            HTTPRoute("DELETE", "/api/v1/apps/{name}", scope: .publish, handler: NativeAPIApps.remove),
            HTTPRoute("POST", "/api/v1/rotation/next", scope: .publish, handler: NativeAPIApps.next),
            HTTPRoute("POST", "/api/v1/rotation/previous", scope: .publish, handler: NativeAPIApps.previous),
            HTTPRoute("POST", "/api/v1/rotation/switch", scope: .publish, handler: NativeAPIApps.switchTo),
        ]
    }
}
