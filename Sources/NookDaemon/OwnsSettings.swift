import NookConfig

/// A service that owns keys of nook.toml: its settings are one value, a member of
/// ``DaemonConfig`` (``member``), read from the file by the service's own ``read(_:over:in:)``.
/// ``DaemonConfig`` only composes the members, in its ``DaemonConfig/readingOrder``; while a
/// service reads, the reader refuses any key the service does not declare, so no service reads
/// another's keys. A new setting is a declaration, a field of its owner's settings and a line
/// of its owner's reading, and nothing central.
protocol OwnsSettings: DeclaresSettings, Sendable {
    associatedtype Settings: Equatable & Sendable
    /// The name a key read outside its owner is refused with.
    static var name: String { get }
    /// Where ``DaemonConfig`` keeps the settings.
    static var member: WritableKeyPath<DaemonConfig, Settings> { get }
    /// The file's values of the service's keys over `settings` (their defaults), checked.
    static func read(_ reader: ConfigReader, over settings: Settings, in reading: SettingsReading) throws(ConfigError) -> Settings
    /// What a start would refuse that the file alone does not show (a group or user the system
    /// does not have), so that `nookd --check` refuses it too, naming the key.
    static func checkNames(_ settings: Settings) throws(DaemonError)
}

extension OwnsSettings {
    static func checkNames(_ settings: Settings) throws(DaemonError) {}
}

/// What a service's reading may look at beyond its own keys.
struct SettingsReading {
    /// The config file's directory: a relative theme file is there.
    let directory: String
    /// The services' settings as read so far: those before the reader's own in
    /// ``DaemonConfig/readingOrder`` are the file's, the others still their defaults.
    let earlier: DaemonConfig
}

extension DaemonConfig {
    /// The owner's settings read from `reader`, the reader refusing any key the owner does not
    /// declare while it reads.
    mutating func readSettings<Owner: OwnsSettings>(of owner: Owner.Type, from reader: ConfigReader, directory: String) throws(ConfigError) {
        reader.restrict(to: ConfigKeyTable(owner.settings.map(\.key)), owner: "the \(owner.name) service")
        self[keyPath: owner.member] = try owner.read(reader, over: self[keyPath: owner.member], in: SettingsReading(directory: directory, earlier: self))
    }

    /// The owner's ``OwnsSettings/checkNames(_:)`` of its settings here.
    func checkNames<Owner: OwnsSettings>(of owner: Owner.Type) throws(DaemonError) {
        try owner.checkNames(self[keyPath: owner.member])
    }

    /// Whether `other` holds other settings of `owner` than these.
    func differs<Owner: OwnsSettings>(from other: DaemonConfig, for owner: Owner.Type) -> Bool {
        self[keyPath: owner.member] != other[keyPath: owner.member]
    }
}

extension DaemonService where Self: OwnsSettings, Section == Settings {
    /// A service whose section is its own settings, nothing of another's.
    static func section(of config: DaemonConfig) -> Section { config[keyPath: member] }
}

extension ConfigReader {
    /// The value, or the problem as an error naming the key and its line.
    func checked<Value>(_ key: String, _ result: Result<Value, SettingProblem>) throws(ConfigError) -> Value {
        switch result {
        case .success(let value): return value
        case .failure(let problem): throw error(key, problem.description)
        }
    }
}
