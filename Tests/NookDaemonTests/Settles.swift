import NookTestSupport

/// Polls `condition` until it holds or the scaled bound passes, for the in-process nookd tests
/// whose state is read through `await`.
func settles(_ condition: () async -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + TestBounds.duration(.seconds(30))
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return false
}
