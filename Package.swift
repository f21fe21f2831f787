// swift-tools-version: 6.1
import PackageDescription

// Module layout and import rules: see README.md, "Architecture".
let package = Package(
    name: "Nook",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "NookActivities", targets: ["NookActivities"]),
        .executable(name: "nook-demo", targets: ["nook-demo"]),
        .executable(name: "nook-bench", targets: ["nook-bench"]),
    ],
    targets: [
        // The activity queue: standard library and the toolchain's Swift modules only.
        .target(name: "NookActivities"),
        // Manual clock and scriptable engagement for tests; never linked into a product.
        .target(name: "NookTestSupport", dependencies: ["NookActivities"]),
        .executableTarget(name: "nook-demo", dependencies: ["NookActivities"]),
        .executableTarget(name: "nook-bench", dependencies: ["NookActivities", "NookTestSupport"]),
        .testTarget(
            name: "NookActivitiesTests",
            dependencies: ["NookActivities", "NookTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
