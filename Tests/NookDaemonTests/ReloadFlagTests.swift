import NookActivities
import NookConfig
@testable import NookDaemon
import NookDisplay
import NookRender
import NookTestTraits
import Testing

/// N1: a key a command-line flag sets keeps the flag's value at every reload, whatever the
/// file says; the reload's log line does not name it as applied or as needing a restart.
@Suite("N1 a reload leaves the keys the flags hold out of its log line", .ownThreads)
struct ReloadFlagTests {
    @Test func n1_aKeyAFlagHoldsIsNeitherAppliedNorWaitingForARestartWhenTheFileChangesIt() throws {
        var flags = FlagOverrides()
        flags.theme = "dark"
        flags.socket = "/run/flag.sock"
        func load(_ text: String) throws -> DaemonConfig {
            var config = try DaemonConfig(reading: ConfigReader(try ConfigDocument(parsing: text, source: "nook.toml")))
            flags.apply(to: &config)
            return config
        }
        let old = try load("[daemon]\nsocket = \"/run/a.sock\"\nmax_connections = 64\n[theme]\nappearance = \"dark\"\ncorner_radius = 0.1\n")
        let new = try load("[daemon]\nsocket = \"/run/b.sock\"\nmax_connections = 65\n[theme]\nappearance = \"light\"\ncorner_radius = 0.2\n")
        #expect(new.screen.theme.appearance == old.screen.theme.appearance && new.socket.path == "/run/flag.sock", "the flags still win")
        let decision = Daemon.reloadDecision(DaemonParts.startOrder, from: old, to: new, context: ReloadContext(displaySize: PixelSize(width: 1280, height: 400)))
        #expect(decision.applied == ["theme.corner_radius"], "\(decision)")
        #expect(decision.needsRestart == ["daemon.max_connections"], "\(decision)")
    }
}
