import Foundation
import NookTestTraits
import Testing

/// Hardware/dev/check-imports reads the arrows from Package.swift rather than a list of its own:
/// these run it on a small package written here, so a rule it stops enforcing fails.
@Suite("Import rules come from Package.swift", .ownThreads)
struct ImportRulesTests {
    let script = repository + "/Hardware/dev/check-imports"

    /// A package of three Swift modules and one C library: `NookActivities` (the activity queue,
    /// which may not import C) depends on nothing, `Screen` on it and the C library `CPaint`,
    /// `Tool` on `Screen`.
    func package(_ sources: [String: String]) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imports-\(UUID().uuidString)").path
        let manifest = """
            // swift-tools-version: 6.0
            import PackageDescription
            let package = Package(name: "Fixture", targets: [
                .target(name: "NookActivities"),
                .systemLibrary(name: "CPaint"),
                .target(name: "Screen", dependencies: ["NookActivities", "CPaint"]),
                .executableTarget(name: "Tool", dependencies: ["Screen"]),
            ])
            """
        var files = ["Package.swift": manifest, "Sources/CPaint/module.modulemap": "module CPaint { header \"paint.h\" }\n",
                     "Sources/CPaint/paint.h": "int paint(void);\n"]
        for (path, text) in sources { files[path] = text }
        for (path, text) in files {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return root
    }

    let allowed = [
        "Sources/NookActivities/Queue.swift": "import Synchronization\npublic struct Queue {}\n",
        "Sources/Screen/Screen.swift": "import Glibc\nimport NookActivities\ninternal import CPaint\npublic struct Screen {}\n",
        "Sources/Tool/main.swift": "import Screen\nlet text = \"\"\"\nimport json\n\"\"\"\n",
    ]

    @Test func aPackageThatKeepsItsArrowsPasses() throws {
        let root = try package(allowed)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let result = try run(script, [root])
        #expect(result.status == 0, "\(result.output)")
    }

    @Test(arguments: [
        ("Sources/Tool/main.swift", "import NookActivities\n", "Tool/main.swift:1: imports NookActivities"),
        ("Sources/NookActivities/Queue.swift", "import Glibc\n", "NookActivities/Queue.swift:1: imports Glibc"),
        ("Sources/Screen/Screen.swift", "import CPaint\n", "must use 'internal import CPaint'"),
        ("Sources/Tool/main.swift", "import Foundation\n", "Tool/main.swift:1: imports Foundation"),
        ("Sources/Screen/Screen.swift", "import Testing\n", "test frameworks only in test targets"),
    ])
    func anImportPackageSwiftDoesNotDeclareIsNamed(file: String, text: String, expected: String) throws {
        var sources = allowed
        sources[file] = text
        let root = try package(sources)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let result = try run(script, [root])
        #expect(result.status == 1)
        #expect(result.output.contains(expected), "\(result.output)")
    }
}
