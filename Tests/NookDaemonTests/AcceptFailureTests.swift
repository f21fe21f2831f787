#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import NookDaemon
import NookSystem

/// C1: a failing `accept` must neither spin nor flood the log (the listening socket stays
/// readable while the connection waits in the backlog).
@Suite("C1 accept failures") struct AcceptFailureTests {
    @Test func c1_outOfDescriptorsOrMemoryPausesAcceptingAndALostConnectionDoesNot() {
        for code in [EMFILE, ENFILE, ENOBUFS, ENOMEM, EPERM, EINVAL] { #expect(AcceptFailure(errno: Errno(rawValue: code)) == .starved, "errno \(code)") }
        for code in [ECONNABORTED, EPROTO] { #expect(AcceptFailure(errno: Errno(rawValue: code)) == .connectionLost, "errno \(code)") }
        #expect(AcceptFailure(errno: Errno(rawValue: EAGAIN)) == .drained)
    }

    @Test func c1_aRepeatingWarningIsLoggedOnceThenEveryIntervalWithTheCountItStandsFor() {
        var throttle = LogThrottle(interval: .seconds(10))
        #expect(throttle.admit(at: .seconds(100)) == 1)
        // A retry every second while out of descriptors: silent until ten seconds have passed.
        for second in 101...109 { #expect(throttle.admit(at: .seconds(second)) == nil) }
        #expect(throttle.admit(at: .seconds(110)) == 10)
        #expect(throttle.admit(at: .milliseconds(110_500)) == nil)
        #expect(throttle.admit(at: .seconds(500)) == 2)
    }
}
