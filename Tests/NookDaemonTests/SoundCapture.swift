import Foundation

/// The real nookd playing into alsa-lib's `file` PCM: every sample it plays lands in `capture`,
/// raw 16-bit little-endian, for the test to read back.
struct SoundCapture {
    let scratch = Scratch()
    let daemon: DaemonProcess
    var capture: String { scratch.path + "/played.raw" }

    /// `settings`: the lines of `[sound]` after its output and device.
    init(_ settings: String = "") throws {
        let config = scratch.file("nook.toml", """
            [sound]
            output = "alsa"
            device = "file:FILE=\(scratch.path)/played.raw,FORMAT=raw"
            \(settings)

            """)
        daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config, "--journal", "none"])
    }
}
