import ArgumentParser
import NookActivities
import NookProtocol

/// `nookctl icons`: the names `--icon` and `--tint` take, without asking nookd (the lists are
/// compiled in, from the same tables nookd draws with).
struct Icons: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "icons",
        abstract: "List the built-in icon names (--icon) and the tint names (--tint).",
        discussion: """
            --icon also takes an image file: an absolute path, or a NAME.png looked up in \
            nookd's icon directories (daemon.icon_directories). --tint also takes accent and #RRGGBB.
            """)
    /// Taken as every command takes it (`--json` prints one object); nookd is not asked.
    @OptionGroup var connection: Connection
    @Flag(help: "Only the icon names, one a line.") var iconsOnly = false
    @Flag(help: "Only the tint names, one a line.") var tintsOnly = false

    func validate() throws {
        if iconsOnly && tintsOnly { throw ValidationError("--icons-only and --tints-only contradict each other") }
    }

    func run() throws {
        let tints = ["accent"] + NookTint.Name.allCases.map(\.rawValue)
        if connection.json {
            func list(_ names: [String]) -> JSONValue { .array(names.map(JSONValue.string)) }
            print(JSONValue.object((tintsOnly ? [] : [("icons", list(NookIconNames.all))]) + (iconsOnly ? [] : [("tints", list(tints))])).serialized)
            return
        }
        if iconsOnly { print(NookIconNames.all.joined(separator: "\n")); return }
        if tintsOnly { print(tints.joined(separator: "\n")); return }
        print("icons:")
        for name in NookIconNames.all { print("  \(name)") }
        print("tints:")
        for name in tints { print("  \(name)") }
        print("  #RRGGBB")
    }
}
