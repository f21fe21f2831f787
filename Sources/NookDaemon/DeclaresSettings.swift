import NookConfig

/// A service whose keys are declared as ``Setting``s: its ``DaemonService/keys`` are theirs,
/// and a reload decides each key by its declaration.
protocol DeclaresSettings {
    static var settings: [SettingDeclaration] { get }
}

extension DeclaresSettings {
    /// The declaration of `key`, if one of ``settings`` is it.
    static func declaration(of key: String) -> SettingDeclaration? { settings.first { $0.key == key } }
}
