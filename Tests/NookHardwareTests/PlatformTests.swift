import Foundation
import NookTestTraits
import Testing

/// The oldest Swift and Debian Nook supports are declared where the build and a reader look,
/// and the scripts that prove them (Debian 13's Swift, the aarch64 cross build) stay runnable.
/// The builds themselves are the proof: `Hardware/dev/debian-swift test` and
/// `Hardware/dev/cross arm64` (docs/platforms.md).
@Suite("P1 P2 platforms: the oldest Swift and Debian are declared and the toolchain scripts run", .ownThreads)
struct PlatformTests {
    func text(_ path: String) throws -> String {
        try String(contentsOfFile: repository + "/" + path, encoding: .utf8)
    }

    @Test func p1_theManifestAsksForNoNewerSwiftThanDebian13Ships() throws {
        let manifest = try text("Package.swift")
        #expect(manifest.hasPrefix("// swift-tools-version: 6.0\n"), "Debian 13's swiftlang is 6.0.3: \(manifest.prefix(40))")
        // Each dependency must build with 6.0 too; swift-log's releases that can be had need 6.2.
        let dependencies = manifest.matches(of: /\.package\(url: "([^"]+)"/).map { String($0.output.1) }
        #expect(dependencies == ["https://github.com/apple/swift-argument-parser"], "\(dependencies)")
    }

    @Test func p1_theReadmeAndThePlatformsPageDeclareTheOldestSupported() throws {
        let readme = try text("README.md")
        let platforms = try text("docs/platforms.md")
        for declared in ["Swift 6.0.3", "Debian 13", "Debian 12"] {
            #expect(readme.contains(declared), "README.md does not say \(declared)")
            #expect(platforms.contains(declared), "docs/platforms.md does not say \(declared)")
        }
        #expect(readme.contains("docs/platforms.md"))
    }

    /// Every script is valid bash and explains itself when called without what it needs.
    @Test(arguments: ["debian-roots", "debian-chroot", "debian-swift", "cross"])
    func p2_theToolchainScriptsParseAndSayHowToCallThem(script: String) throws {
        let path = repository + "/Hardware/dev/" + script
        #expect(FileManager.default.isExecutableFile(atPath: path))
        #expect(try run("/bin/bash", ["-n", path]).status == 0)
        if script != "debian-roots" {
            let usage = try run(path, [])
            #expect(usage.status == 64, "\(usage.output)")
            #expect(usage.output.contains("Hardware/dev/\(script)"), "\(usage.output)")
        }
    }
}
