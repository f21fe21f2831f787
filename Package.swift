// swift-tools-version: 6.0
import PackageDescription

// The arrows between modules are written here and nowhere else: Hardware/dev/check-imports
// reads them from `swift package dump-package` (docs/architecture.md).
//
// Tools version 6.0: the oldest Swift Nook supports is 6.0.3, Debian 13's `swiftlang`
// (docs/platforms.md).

/// Scripts start nookctl for every event. Linked fully static (release builds) it starts in
/// under half the time: no dynamic loader resolving the C and C++ libraries' symbols. Debug
/// builds stay dynamic: the sanitizers need that. Swift 6.0's static-executable-args.lnk names
/// ICU archives (`-licuucswift`) that 6.0 no longer ships (its Foundation carries ICU as
/// _FoundationICU), so with 6.0, Debian 13's Swift, nookctl is linked like every other program.
var nookctlLinking: [LinkerSetting] {
    #if compiler(>=6.1)
    [
        .unsafeFlags(["-static-executable"], .when(configuration: .release)),
        // ArgumentParser's FoundationEssentials, compiled against the shared runtime, names
        // only itself to the linker: its static archive needs these two beside it.
        .linkedLibrary("_FoundationCollections", .when(configuration: .release)),
        .linkedLibrary("_FoundationCShims", .when(configuration: .release)),
    ]
    #else
    []
    #endif
}

let package = Package(
    name: "Nook",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "NookActivities", targets: ["NookActivities"]),
        .executable(name: "nook-demo", targets: ["nook-demo"]),
        .executable(name: "nook-bench", targets: ["nook-bench"]),
        .executable(name: "nook-render", targets: ["nook-render"]),
        .executable(name: "nookd", targets: ["nookd"]),
        .executable(name: "nookctl", targets: ["nookctl"]),
        .executable(name: "nook-fuzz", targets: ["nook-fuzz"]),
        .executable(name: "nook-notify", targets: ["nook-notify"]),
        .executable(name: "nook-lcdproc", targets: ["nook-lcdproc"]),
        .executable(name: "nook-http", targets: ["nook-http"]),
        .executable(name: "nook-mqtt", targets: ["nook-mqtt"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The activity queue: standard library and the toolchain's Swift modules only.
        .target(name: "NookActivities"),
        // The thin Glibc layer every device and socket module uses: the one system-call wrapper
        // (EINTR retried, EAGAIN a value) with a typed Errno and SystemCallError (one errno
        // message format), FileDescriptor and MemoryMapping owners, Unix socket addresses, the
        // wake pipe of a poll loop, directory listing.
        .target(name: "NookSystem"),
        // cairo + pango, seen only by NookRender.
        .systemLibrary(
            name: "CPangoCairo",
            pkgConfig: "pangocairo",
            providers: [.apt(["libcairo2-dev", "libpango1.0-dev"])]
        ),
        // libdrm, seen only by NookDRM.
        .systemLibrary(name: "CDRM", pkgConfig: "libdrm", providers: [.apt(["libdrm-dev"])]),
        // DRM/KMS dumb-buffer display backend.
        .target(name: "NookDRM", dependencies: ["NookActivities", "NookDisplay", "NookSystem", "CDRM"]),
        // fbdev fallback: /dev/fbN through ioctls and mmap, pure Swift.
        .target(name: "NookFramebuffer", dependencies: ["NookActivities", "NookDisplay", "NookSystem"]),
        // The TOML subset of Nook's config and theme files, with line numbers: pure Swift.
        .target(name: "NookConfig", dependencies: ["NookSystem"]),
        // libgpiod 1.6 or 2.x, whichever pkg-config finds; included only by the shim CGPIOD,
        // whose one small API covers both (chosen by a macro only 1.6's gpiod.h defines).
        .systemLibrary(name: "CLibGPIOD", pkgConfig: "libgpiod", providers: [.apt(["libgpiod-dev"])]),
        .target(name: "CGPIOD", dependencies: ["CLibGPIOD"]),
        // Engagement from real sensors: GPIO lines through CGPIOD (its only importer), IIO proximity.
        .target(name: "NookInput", dependencies: ["NookActivities", "NookSystem", "CGPIOD"]),
        // The socket protocol: JSON lines, requests, answers, events. No Foundation: nookctl starts fast.
        // NookSound checks a card's sound (CardSound) for nookd and for the bridges alike.
        .target(name: "NookProtocol", dependencies: ["NookActivities", "NookSystem", "NookSound"]),
        // Frames, the DisplayBackend protocol, the mock display, rotation: pure Swift.
        .target(name: "NookDisplay", dependencies: ["NookActivities", "NookSystem"]),
        // LED backends (L1, L2, L5): layouts, gamma and current budget, WS2812/SK6812 and APA102
        // over spidev, IS31FL3731 and HT16K33 over i2c-dev: pure Swift through NookSystem.
        .target(name: "NookLED", dependencies: ["NookActivities", "NookDisplay", "NookPixel", "NookSystem"]),
        // The pixel renderer for LED matrices and strips (L3, L4): bitmap font, marquee, 8x8 icons.
        .target(name: "NookPixel", dependencies: ["NookActivities", "NookDisplay"]),
        // Sound (SPEC B): tones, melodies and samples, RTTTL, WAV, chimes, synthesis, the melody
        // player on NookActivities' clock; no C, no device.
        .target(name: "NookSound", dependencies: ["NookActivities"]),
        // alsa-lib, seen only by NookAudio.
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        // Sound outputs (B1): an ALSA PCM through CALSA (its only importer), the kernel's beeper
        // through NookSystem's input device; each plays on a thread of its own.
        .target(name: "NookAudio", dependencies: ["NookSound", "NookSystem", "NookLogging", "CALSA"]),
        // zlib (Debian zlib1g-dev), seen only by NookPNG.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // The live view's PNG encoder (V1): RGB8 rows deflated by zlib, fast enough for every frame.
        .target(name: "NookPNG", dependencies: ["NookDisplay", "CZlib"]),
        // The GIF decoder for icon files (R3, M3): pure Swift, bounded, no C.
        .target(name: "NookGIF"),
        // Theme, icons, card layout, home content, animation, PNG: the only user of cairo/pango.
        .target(name: "NookRender", dependencies: ["NookActivities", "NookDisplay", "NookConfig", "NookSystem", "NookGIF", "CPangoCairo"]),
        // The daemon's wiring: config, backend selection, socket server, signals, requests.
        .target(name: "NookDaemon", dependencies: [
            "NookActivities", "NookProtocol", "NookConfig", "NookDisplay", "NookRender", "NookInput", "NookDRM", "NookFramebuffer", "NookLED", "NookPixel",
            "NookPNG", "NookSystem", "NookLogging", "NookSound", "NookAudio",
        ]),
        // How every Nook process logs: a logger of its own (swift-log's API subset and line format,
        // without a dependency that needs a newer Swift) on standard error at --log-level.
        .target(name: "NookLogging", dependencies: ["NookSystem"]),
        // No ArgumentParser here: it links FoundationEssentials (NookdCommandLine reads the flags).
        // Runs Swift concurrency on executors of its own (ThreadExecutors.swift: no libdispatch threads).
        .executableTarget(name: "nookd", dependencies: [
            "NookActivities", "NookDaemon", "NookDisplay", "NookLogging", "NookSystem",
        ]),
        .executableTarget(name: "nookctl", dependencies: [
            "NookProtocol", "NookActivities", "NookSystem",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], linkerSettings: nookctlLinking),
        // Renders one activity to a PNG at a panel size and theme: for people and the docs.
        .executableTarget(name: "nook-render", dependencies: [
            "NookRender", "NookDisplay", "NookActivities",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // sd-bus from libsystemd, seen only by NookNotify.
        .systemLibrary(name: "CSystemdBus", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // The org.freedesktop.Notifications bridge (SPEC E1-E3): a client of nookd's socket.
        .target(name: "NookNotify", dependencies: [
            "NookActivities", "NookProtocol", "NookSystem", "CSystemdBus", "NookLogging",
        ]),
        // No ArgumentParser (it links FoundationEssentials): NotifyCommandLine reads the flags.
        .executableTarget(name: "nook-notify", dependencies: [
            "NookNotify", "NookProtocol", "NookSystem", "NookLogging",
        ]),
        // The LCDproc protocol server (SPEC E8): LCDd's parser and screens, a client of nookd's socket.
        .target(name: "NookLCDproc", dependencies: [
            "NookActivities", "NookProtocol", "NookSystem", "NookConfig", "NookLogging",
        ]),
        .executableTarget(name: "nook-lcdproc", dependencies: [
            "NookLCDproc", "NookProtocol", "NookSystem", "NookConfig", "NookLogging",
        ]),
        // The web (SPEC H1-H4, V1-V2): an HTTP/1.1 server of its own on NookSystem's sockets,
        // a client of nookd's socket like the other bridges.
        // OpenSSL's libssl (Debian libssl-dev), included only by the shim CNookTLS, whose few
        // calls (OpenSSL's API is mostly macros) are nook-http's TLS for LaMetric's local API (M4).
        .systemLibrary(name: "CLibSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .target(name: "CNookTLS", dependencies: ["CLibSSL"]),
        .target(name: "NookHTTP", dependencies: [
            "NookActivities", "NookProtocol", "NookSystem", "NookConfig", "NookLogging", "CNookTLS", "NookGIF", "NookPNG",
        ]),
        .executableTarget(name: "nook-http", dependencies: [
            "NookHTTP", "NookActivities", "NookProtocol", "NookSystem", "NookConfig", "NookLogging",
        ]),
        // libmosquitto (Debian libmosquitto-dev), seen only by NookMQTT. No pkgConfig: its .pc
        // file adds only -pthread, which SwiftPM refuses with a warning on every build.
        .systemLibrary(name: "CMosquitto"),
        // The MQTT and Home Assistant bridge (SPEC E4-E7): a client of nookd's socket.
        .target(name: "NookMQTT", dependencies: [
            "NookActivities", "NookProtocol", "NookSound", "NookSystem", "NookConfig", "CMosquitto", "NookLogging",
        ]),
        // No ArgumentParser (it links FoundationEssentials): BridgeCommandLine reads the flags.
        .executableTarget(name: "nook-mqtt", dependencies: [
            "NookMQTT", "NookProtocol", "NookConfig", "NookSystem", "NookLogging",
        ]),
        // nookd's outside inputs as fuzz targets; nook-fuzz runs them under libFuzzer (Hardware/dev/fuzz).
        .target(name: "NookFuzzTargets", dependencies: ["NookActivities", "NookConfig", "NookDaemon", "NookProtocol", "NookLCDproc", "NookHTTP", "NookGIF", "NookSound"]),
        .executableTarget(name: "nook-fuzz", dependencies: ["NookFuzzTargets", "NookSystem"]),
        // Manual clock and scriptable engagement for tests; never linked into a product.
        .target(name: "NookTestSupport", dependencies: ["NookActivities", "NookProtocol", "NookSystem"]),
        // Swift Testing traits shared by test targets. A test target itself: it imports Testing,
        // which a plain `swift build` (and the static SDK of `--static-swift-stdlib`) lacks.
        .testTarget(name: "NookTestTraits", dependencies: ["NookSystem"]),
        .executableTarget(name: "nook-demo", dependencies: ["NookActivities"]),
        // Two probes nook-bench runs side by side (`nook-bench flags`): the same flags read by
        // the hand reader and by ArgumentParser, the start-up time and idle memory each costs.
        // Benchmark fixtures, not products: nook-bench builds each with `--product`, which a root
        // package's executable target answers without being listed among the products.
        .executableTarget(name: "flag-probe-flag-reader", dependencies: ["NookSystem"]),
        .executableTarget(name: "flag-probe-argument-parser", dependencies: [
            "NookSystem", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "nook-bench", dependencies: ["NookActivities", "NookTestSupport", "NookDisplay", "NookRender", "NookProtocol", "NookLED", "NookPixel", "NookLCDproc",
                                                           "NookPNG", "NookMQTT", "NookNotify", "NookHTTP", "NookSystem", "NookLogging"]),
        .testTarget(name: "NookConfigTests", dependencies: ["NookConfig"]),
        .testTarget(name: "NookAudioTests", dependencies: ["NookAudio", "NookSound", "NookSystem", "NookLogging", "NookActivities", "NookTestSupport", "NookTestTraits"]),
        .testTarget(name: "NookSystemTests", dependencies: ["NookSystem", "NookTestTraits"]),
        .testTarget(name: "NookFuzzTargetsTests", dependencies: ["NookFuzzTargets"]),
        .testTarget(name: "NookSoundTests", dependencies: ["NookSound", "NookActivities", "NookTestSupport"]),
        .testTarget(name: "NookFramebufferTests", dependencies: ["NookFramebuffer", "NookActivities"]),
        .testTarget(name: "NookInputTests", dependencies: ["NookInput", "NookActivities", "NookDisplay", "NookSystem", "NookTestSupport"]),
        .testTarget(name: "NookNotifyTests", dependencies: ["NookNotify", "NookActivities", "NookProtocol", "NookSystem"]),
        .testTarget(name: "NookLCDprocTests", dependencies: ["NookLCDproc", "NookActivities", "NookProtocol", "NookSystem", "NookConfig", "NookTestSupport", "NookTestTraits"],
                    resources: [.copy("Transcripts")]),
        // Browser/: the page's browser test script (run by PageBrowserTests with python3);
        // HomeAssistant/: ntfy's real clients' script (run by NtfyRealClientsTests).
        .testTarget(name: "NookHTTPTests", dependencies: ["NookHTTP", "NookActivities", "NookProtocol", "NookSystem", "NookConfig", "NookTestSupport", "NookTestTraits",
                                                    "NookLogging"],
                    exclude: ["Browser", "HomeAssistant"]),
        .testTarget(name: "NookMQTTTests", dependencies: ["NookMQTT", "NookActivities", "NookProtocol", "NookConfig", "NookSystem", "NookTestTraits"]),
        .testTarget(name: "NookProtocolTests", dependencies: ["NookProtocol", "NookActivities"]),
        // nookctl's own reading of `enqueue` command lines against ArgumentParser's.
        .testTarget(name: "NookctlTests", dependencies: ["nookctl", "NookProtocol", "NookActivities", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // Hardware/ and udev/: the unit, rules, overlay and install script.
        .testTarget(name: "NookHardwareTests", dependencies: ["NookTestTraits"]),
        // docs/man against the code: every page lints clean and names every config key, command
        // and flag the programs accept (read from the config readers, each bridge's declared
        // settings and the built binaries).
        .testTarget(name: "NookManPageTests", dependencies: [
            "NookDaemon", "NookConfig", "NookProtocol", "NookActivities", "NookHTTP", "NookMQTT", "NookLCDproc", "NookTestTraits",
        ]),
        .testTarget(name: "NookDaemonTests", dependencies: [
            "NookDaemon", "NookProtocol", "NookConfig", "NookActivities", "NookDisplay", "NookRender", "NookInput", "NookTestSupport", "NookTestTraits", "NookSystem",
            "NookLogging", "NookPixel", "NookSound", "NookAudio", "nookd",
        ]),
        .testTarget(name: "NookGIFTests", dependencies: ["NookGIF", "NookTestSupport"]),
        .testTarget(name: "NookPNGTests", dependencies: ["NookPNG", "NookDisplay", "NookRender", "NookTestTraits"]),
        .testTarget(name: "NookDisplayTests", dependencies: ["NookDisplay", "NookActivities", "NookTestSupport", "NookTestTraits"]),
        .testTarget(name: "NookPixelTests", dependencies: ["NookPixel", "NookDisplay", "NookActivities", "NookRender", "NookTestSupport", "NookTestTraits"],
                    exclude: ["Golden"]),
        .testTarget(name: "NookLEDTests", dependencies: ["NookLED", "NookPixel", "NookDisplay", "NookActivities", "NookTestSupport", "NookTestTraits"]),
        .testTarget(
            name: "NookRenderTests",
            dependencies: ["NookRender", "NookDisplay", "NookActivities", "NookConfig", "NookTestSupport", "NookTestTraits"],
            exclude: ["Golden", "fonts.conf"]
        ),
        .testTarget(
            name: "NookActivitiesTests",
            dependencies: ["NookActivities", "NookTestSupport", "NookTestTraits"]
        ),
    ],
    swiftLanguageModes: [.v6]
)


// Hardware/dev/test builds the aarch64 suite without the suites it does not run there (the
// end-to-end ones and the text checks, docs/testing.md), named in NOOK_TESTS_LEFT_OUT: compiled
// for nothing under emulation's 6.0.3, they were a quarter of the code of CI's longest build.
if let leftOut = Context.environment["NOOK_TESTS_LEFT_OUT"]?.split(separator: " ").map(String.init) {
    package.targets.removeAll { $0.type == .test && leftOut.contains($0.name) }
}

// The AddressSanitizer build the suite runs from leaves out the programs no test starts (the
// benchmark, the fuzzer, the demo, the flag probes), named in NOOK_PROGRAMS_LEFT_OUT: each was an
// instrumented link, and nook-bench a module, on CI's two cores for nothing the pass checks.
if let leftOut = Context.environment["NOOK_PROGRAMS_LEFT_OUT"]?.split(separator: " ").map(String.init) {
    package.products.removeAll { leftOut.contains($0.name) }
    package.targets.removeAll { $0.type == .executable && leftOut.contains($0.name) }
}

// And its aarch64 release build, whose programs the arm64 packages ship and the aarch64 guests
// and suite run, builds only those (NOOK_PROGRAMS_ONLY, the programs Hardware/debian's install
// files ship, which `cross` reads): not the benchmark, the fuzzer, the demo, nook-render, the flag
// probes nor what only they and the tests use, a tenth of the code on CI's longest lane. A plain
// `swift build` still builds every product.
if let programs = Context.environment["NOOK_PROGRAMS_ONLY"]?.split(separator: " ").map(String.init), !programs.isEmpty {
    let shipped = Set(programs)
    let unshipped = Set(package.targets.filter { $0.type == .executable && !shipped.contains($0.name) }.map(\.name))
        .union(["NookFuzzTargets", "NookTestSupport"])
    package.products.removeAll { unshipped.contains($0.name) }
    package.targets.removeAll { $0.type == .test || unshipped.contains($0.name) }
}
