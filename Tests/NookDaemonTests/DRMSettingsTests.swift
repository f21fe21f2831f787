import Foundation
import NookConfig
@testable import NookDaemon
import NookTestTraits
import Testing

/// D1: `[display] page_flip` chooses DRM's single-buffer dirty-fb path (proven on a real kernel
/// by `Hardware/vm/run drm`); the DRM selection is read once, at start.
@Suite("D1 DRM settings", .ownThreads)
struct DRMSettingsTests {
    func parse(_ text: String) throws(ConfigError) -> DaemonConfig {
        try DaemonConfig(reading: ConfigReader(try ConfigDocument(parsing: text, source: "nook.toml")))
    }

    @Test func d1_pagesAreFlippedUnlessTheConfigSaysDrawInPlace() throws {
        #expect(try parse("").display.pageFlip)
        #expect(try parse("[display]\npage_flip = true\n").display.pageFlip)
        #expect(try !parse("[display]\ncard = \"/dev/dri/card1\"\npage_flip = false\n").display.pageFlip)
        do {
            _ = try parse("[display]\npage_flip = \"no\"\n")
            Issue.record("a string for page_flip must be refused")
        } catch {
            #expect(error.description.hasPrefix("nook.toml:2: display.page_flip:"), "\(error.description)")
        }
    }

    @Test func d1_n1_aReloadThatChangesTheDRMSelectionSaysNookdMustRestartForIt() throws {
        let scratch = Scratch()
        let path = scratch.file("nook.toml", "[display]\nrotation = 0\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", path])
        _ = scratch.file("nook.toml", "[display]\nrotation = 0\npage_flip = false\n")
        kill(daemon.process.processIdentifier, SIGHUP)
        try eventually("the reload's note") { daemon.log.contains("SIGHUP: reloaded") }
        #expect(daemon.log.contains("restart nookd to apply display.page_flip"), "\(daemon.log.suffix(1000))")
        #expect(daemon.process.isRunning)
        #expect(daemon.stop().status == 0)
    }
}
