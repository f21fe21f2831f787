/// Tests that import NookTestSupport get NookSystem's `Locked`, the TSan-visible lock they
/// share state with.
@_exported import NookSystem
