import NookTestSupport

/// Polls `condition` until it holds or the scaled bound passes, for the in-process nookd tests
/// whose state is read through `await`.
///
/// The bound only ends a hang. An in-process nookd's own tasks run on the cooperative pool the
/// whole test process shares, first come first served: early in a whole run, when every suite
/// starts at once, and while the load test's 64 client threads run, a job waited behind the
/// others for over 30 s, and the app tests failed with nothing wrong in nookd.
func settles(_ condition: () async -> Bool) async throws -> Bool {
    try await Waiting.until(seconds: 180, every: .milliseconds(10)) { await condition() }
}
