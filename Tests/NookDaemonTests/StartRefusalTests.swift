import Foundation
import NookTestTraits
import Testing

/// A start nookd refuses for its config refuses it before it takes the display: there is then
/// nothing on the glass to put back, whichever panel it is.
@Suite("N1 N2 a refused start leaves the display alone", .serialized, .ownThreads)
struct StartRefusalTests {
    /// The DRM display is the one this machine cannot open: refused for the admin group first,
    /// the start never tries it (a panel that opens would otherwise be left showing nookd's
    /// buffer, as nothing restores a display the daemon never finished building).
    @Test func n2_anAdminGroupThatIsGoneIsRefusedBeforeTheDisplayIsTaken() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[daemon]\nadmin_group = \"nook-no-such-group\"\n")
        let daemon = try DaemonProcess.exited(scratch: scratch, arguments: ["--config", config, "--display", "drm"])
        #expect(daemon.process.terminationStatus == 1)
        #expect(daemon.log.contains("daemon.admin_group: no group named 'nook-no-such-group'"), "\(daemon.log)")
        #expect(!daemon.log.contains("cannot drive the display"), "the display was not tried: \(daemon.log)")
    }
}
