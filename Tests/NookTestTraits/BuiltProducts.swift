import Foundation

/// The repository and the programs the end-to-end tests start: nookd, nookctl, the bridges.
public enum BuiltProducts {
    public static let repository: String = {
        let file = #filePath
        return String(file[..<file.range(of: "/Tests/")!.lowerBound])
    }()
    /// `swift test` builds them into .build/debug before the tests run. NOOK_TEST_BINARIES picks
    /// another build: the release one (Hardware/dev/test's ThreadSanitizer pass starts the
    /// programs a user runs) or a sanitizer's (.build-asan/debug).
    public static let directory: String = {
        let named = ProcessInfo.processInfo.environment["NOOK_TEST_BINARIES"] ?? ""
        return named.isEmpty ? repository + "/.build/debug" : named
    }()
    /// Whether they are a sanitizer's build, whose memory figures mean nothing: any folder but
    /// the plain debug and release builds (compared with symbolic links resolved: `.build/release`
    /// is a link to the target's folder, and a checkout may be reached through one).
    public static let isInstrumented: Bool = {
        func resolved(_ path: String) -> String { URL(fileURLWithPath: path).resolvingSymlinksInPath().path }
        let plain = [repository + "/.build/debug", repository + "/.build/release"].map(resolved)
        return !plain.contains(resolved(directory))
    }()
    /// The path of the program `name` in that build.
    public static func program(_ name: String) -> String { directory + "/" + name }
}
