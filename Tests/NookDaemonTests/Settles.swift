import NookTestSupport

/// Polls `condition` until it holds or the scaled bound passes, for the in-process nookd tests
/// whose state is read through `await`.
///
/// The bound only ends a hang. An in-process nookd's own tasks run on the cooperative pool the
/// whole test process shares, first come first served: early in a whole run, when every suite
/// starts at once, and while the load test's 64 client threads run, a job waited behind the
/// others for over 30 s, and the app tests failed with nothing wrong in nookd.
func settles(_ condition: () async -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + TestBounds.duration(.seconds(180))
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return false
}
