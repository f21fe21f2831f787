import NookLogging

/// Where nook-http's parts join: each HTTP part adds its `XRoutes.routes(...)` here, so the
/// executable and the end-to-end tests serve the same table.
extension HTTPRouteTable {
    /// - Parameters:
    ///   - config: the settings routes read (`[publish]`).
    ///   - logger: where routes log what they left out of a request; silent by default.
    public static func standard(config: HTTPConfig = HTTPConfig(),
                                logger: Logger = Logger(label: "nook-http", factory: { _ in DiscardingLogHandler() })) -> HTTPRouteTable {
        var table = HTTPRouteTable(HTTPCoreRoutes.routes())
        // One order for every route that shows or ends cards by key: a native key, an ntfy
        // sequence id and an alert group are keys of one kind to nookd.
        let order = CardKeyOrder()
        // The parts' lists are added here, one line each: table.add(XRoutes.routes()).
        table.add(NativeAPIRoutes.routes(order: order))
        table.add(PageRoutes.routes())
        table.add(LiveViewRoutes.routes())
        table.add(PublishRoutes.routes(settings: config.publish, order: order, logger: logger))
        table.add(AWTRIXAppRoutes.routes(logger: logger))
        table.add(AWTRIXDeviceRoutes.routes())
        table.add(AlertRoutes.routes(module: config.publish.alertModule, order: order, logger: logger))
        table.add(LaMetricRoutes.routes(settings: config.lametric, module: nil, order: order, logger: logger,
                                        firstID: PublishRoutes.wallClockSeconds() * 1000))
        return table
    }
}
