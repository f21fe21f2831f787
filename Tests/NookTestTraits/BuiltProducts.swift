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
    public static let directory = ProcessInfo.processInfo.environment["NOOK_TEST_BINARIES"] ?? repository + "/.build/debug"
    /// Whether they are a sanitizer's build, whose memory figures mean nothing: any folder but
    /// the plain debug and release builds.
    public static var isInstrumented: Bool {
        let plain = [repository + "/.build/debug", repository + "/.build/release"]
        return !plain.contains(URL(fileURLWithPath: directory).standardizedFileURL.path)
    }
    /// The path of the program `name` in that build.
    public static func program(_ name: String) -> String { directory + "/" + name }
}
