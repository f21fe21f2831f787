import Foundation
import NookTestTraits
import Testing

/// What `Hardware/dev/install-deps` installs for whom, read from its own `--list` (which installs
/// nothing): the demo, the README's first command, gets what it builds with and what its cards
/// draw with; the browsers, emulators, kernels and brokers are the test command's alone.
@Suite("R1 R3 install-deps: the demo's packages and the test command's", .ownThreads)
struct InstallDepsTests {
    static func list(_ set: String...) throws -> [String] {
        let result = try run(repository + "/Hardware/dev/install-deps", ["--list"] + set)
        #expect(result.status == 0, "install-deps --list \(set.joined()): \(result.output)")
        return result.output.split(separator: "\n").map(String.init)
    }

    /// The fonts the demo's cards draw with (NookRender's Theme): DejaVu Sans for the titles and
    /// subtitles, Font Awesome 4.7 for the icons, Noto Color Emoji for "Doorbell 🔔". No card of
    /// the demo has CJK text (the render tests' Droid fallback).
    static let demoFonts: Set = ["fonts-dejavu-core", "fonts-font-awesome", "fonts-noto-color-emoji"]

    @Test func r1_r3_theDemoInstallsTheBuildLibrariesAndItsCardsFontsAndNoTestTool() throws {
        let demo = Set(try Self.list("demo"))
        let build = Set(try Self.list("build"))
        let everything = Set(try Self.list())
        // What `swift build` links: the libraries and the compiler's helpers, as the build set has them.
        let libraries = build.filter { $0.hasSuffix("-dev") || ["pkg-config", "g++"].contains($0) }
        #expect(libraries.count >= 8, "the build set lists the libraries: \(build.sorted())")
        #expect(demo == libraries.union(Self.demoFonts),
                "the demo installs \(demo.subtracting(libraries.union(Self.demoFonts)).sorted()) beyond its build and fonts, and lacks \(libraries.union(Self.demoFonts).subtracting(demo).sorted())")
        // The test command's own tools (named here, so a list that lost them cannot pass unnoticed).
        let testTools = ["chromium", "firefox-esr", "qemu-system-x86", "qemu-system-arm", "qemu-user-static", "linux-image-6.12-amd64",
                         "prometheus-alertmanager", "piuparts", "debootstrap", "python3-pip", "mosquitto", "stress-ng"]
        for tool in testTools {
            #expect(everything.contains(tool), "the test command's set lacks \(tool)")
            #expect(!demo.contains(tool), "the demo installs \(tool), which only the tests use")
        }
        #expect(everything.contains { $0.hasPrefix("pypi:") }, "the test command's set has its PyPI packages")
        #expect(!demo.contains { $0.hasPrefix("pypi:") }, "the demo installs from PyPI: \(demo.filter { $0.hasPrefix("pypi:") }.sorted())")
        #expect(everything.isSuperset(of: demo), "the test command installs what the demo does too")
    }

    @Test func r1_r3_theDemoAsksForItsOwnSet() throws {
        let demo = try String(contentsOfFile: repository + "/Hardware/dev/demo", encoding: .utf8)
        let calls = demo.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.hasPrefix("#") && $0.contains("install-deps") }
        #expect(calls == ["Hardware/dev/install-deps demo"], "Hardware/dev/demo runs \(calls)")
    }

    @Test func r1_r3_anUnknownSetIsRefusedByNameRatherThanInstallingEverything() throws {
        let result = try run(repository + "/Hardware/dev/install-deps", ["--list", "everything"])
        #expect(result.status == 64, "\(result.output)")
        #expect(result.output.contains("unknown set 'everything'"), "\(result.output)")
    }
}
