/// Where nook-http's parts join: each HTTP part adds its `XRoutes.routes(...)` here, so the
/// executable and the end-to-end tests serve the same table.
extension HTTPRouteTable {
    public static func standard() -> HTTPRouteTable {
        let table = HTTPRouteTable(HTTPCoreRoutes.routes())
        // The parts' lists are added here, one line each: table.add(XRoutes.routes()).
        return table
    }
}
