#if canImport(Glibc)
import Glibc
#endif

/// Which executors nookd runs Swift concurrency on: its own (ThreadExecutors.swift, when the
/// compiler has SE-0476) or the platform's. `NOOKD_EXECUTORS=platform` picks the platform's at
/// run time, so one build can be measured both ways; any other value, or none, keeps the default.
enum NookdExecutorChoice: Equatable {
    case own, platform

    static var fromEnvironment: NookdExecutorChoice {
        guard let value = getenv("NOOKD_EXECUTORS") else { return .own }
        return String(cString: value) == "platform" ? .platform : .own
    }
}
