#if canImport(Glibc)
import Glibc
#endif

/// Points fontconfig at `Tests/NookRenderTests/fonts.conf` before pango first loads fonts, so
/// text renders the same wherever the tests run. fontconfig reads the setting once per process,
/// so every test that renders in-process (in any test target) calls this first; a test that drew
/// text before it would change the fonts of every golden image after it.
public enum TestFonts {
    public static func pin() {
        _ = pinned
    }

    /// The repository's test font configuration.
    public static let configuration: String = {
        let file = #filePath
        return String(file[..<file.firstRange(of: "/Sources/")!.lowerBound]) + "/Tests/NookRenderTests/fonts.conf"
    }()

    private static let pinned: Bool = {
        setenv("FONTCONFIG_FILE", configuration, 1)
        return true
    }()
}
