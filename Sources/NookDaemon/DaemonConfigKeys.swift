import NookConfig

extension DaemonConfig {
    /// Every key nook.toml may hold for nookd: the reader reads no other, each one is owned by
    /// a service that applies it at a reload or names it as needing a restart, and nook.toml(5)
    /// documents them. The keys are the services' declared ``Setting``s, in start order, and
    /// spelled nowhere else; `gpio.*` stands for each `[gpio.NAME]` table.
    public static let keys = ConfigKeyTable(DaemonParts.startOrder.flatMap { service -> [String] in
        (service as? any DeclaresSettings.Type)?.settings.map(\.key) ?? []
    })

}
