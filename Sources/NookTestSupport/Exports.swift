/// Tests that import NookTestSupport get `Locked` (NookActivities), the TSan-visible lock they
/// share state with, and NookSystem's owners of descriptors and errno messages.
@_exported import NookActivities
@_exported import NookSystem
