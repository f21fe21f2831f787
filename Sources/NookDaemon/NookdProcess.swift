import NookLogging
import NookActivities
import NookRender
import NookSystem

/// The changes nookd makes to its whole process, in one place and in the order they must
/// happen around building the ``Daemon``: the daemon itself changes nothing process-wide.
public enum NookdProcess {
    /// Prepares the process, builds nookd's daemon, then settles the process's memory.
    public static func makeDaemon(config: DaemonConfig, configPath: String?, overrides: @escaping @Sendable (inout DaemonConfig) -> Void,
                                  logger: Logger, clock: any NookClock = NookSystemClock()) throws(DaemonError) -> Daemon {
        // An id for every enqueue that brings none: 4 KiB of randomness per getrandom(2) call,
        // not 8 bytes (see IDRandomness).
        IDRandomness.install(fill: SystemRandom.fill)
        // Before the screen allocates its first frame: frames as mappings of their own, so a
        // freed one goes back to the kernel. LEDs get the pixel renderer and no such frames.
        if !config.display.backend.isLED { FrameMemory.keepFramesAsOwnMappings() }
        let daemon = try Daemon(config: config, configPath: configPath, overrides: overrides, logger: logger, clock: clock)
        // Once the libraries and the fonts (loaded for the first home frame) are mapped, before
        // the daemon runs most of its code: the text it never runs stays unmapped.
        FaultAround.disableForReadOnlyFileMappings()
        return daemon
    }
}
