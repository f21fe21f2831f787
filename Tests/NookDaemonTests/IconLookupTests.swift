import Foundation
import NookActivities
import NookDisplay
import NookProtocol
import NookRender
import NookTestSupport
import NookTestTraits
import Testing
@testable import NookDaemon

/// LaMetric icon ids and AWTRIX icon names as files (M3): nookd looks a name that is no
/// built-in icon up as `NAME.png` and `NAME.gif` in its icon directories, with every check an
/// icon file gets (only files under those directories, links and `..` resolved, regular files
/// of bounded size that decode); found nowhere, the name stays and the answer says so.
@Suite("M3 icon ids and names as files", .serialized)
struct IconLookupTests {
    static let still = TestGIF.encode(width: 8, height: 8, palette: [0xFF0000], frames: [.init(indices: [UInt8](repeating: 0, count: 64), width: 8, height: 8)])
    static let animated = TestGIF.encode(width: 8, height: 8, palette: [0xFF0000, 0x00FF00], frames: [
        .init(indices: [UInt8](repeating: 0, count: 64), width: 8, height: 8),
        .init(indices: [UInt8](repeating: 1, count: 64), width: 8, height: 8),
    ])

    /// An icon directory with a LaMetric id's GIF, an AWTRIX name's PNG and one named as a built-in icon.
    static func directory(_ scratch: Scratch) throws -> String {
        let icons = scratch.path + "/icons"
        try FileManager.default.createDirectory(atPath: icons, withIntermediateDirectories: true)
        try Data(animated).write(to: URL(fileURLWithPath: icons + "/1234.gif"))
        try PNG.write(Frame(width: 8, height: 8, fill: RGB(hex: 0x00FF00).pixel), to: icons + "/weather.png")
        try Data(still).write(to: URL(fileURLWithPath: icons + "/weather.gif"))
        try Data(still).write(to: URL(fileURLWithPath: icons + "/bell.gif"))
        return icons
    }

    static func icon(_ name: String, _ policy: IconPolicy) throws(ProtocolError) -> String? {
        try policy.checked(NookActivity(title: "x", systemImage: name)).systemImage
    }

    @Test func m3_theFileNamesAnIconIsLookedUpAs() {
        #expect(IconPolicy.fileNames(for: "heat") == ["heat.png", "heat.gif"])
        #expect(IconPolicy.fileNames(for: "1234") == ["1234.png", "1234.gif"])
        #expect(IconPolicy.fileNames(for: "i1234") == ["i1234.png", "i1234.gif", "1234.png", "1234.gif"])
        #expect(IconPolicy.fileNames(for: "a1234") == ["a1234.png", "a1234.gif", "1234.gif", "1234.png"])
        #expect(IconPolicy.fileNames(for: "ice") == ["ice.png", "ice.gif"], "a letter and no id")
        for name in ["", "..", ".hidden", "../1234", "a/b", "x\0y", String(repeating: "z", count: 201)] {
            #expect(IconPolicy.fileNames(for: name).isEmpty, "\(name)")
        }
    }

    @Test func m3_idsAndNamesAreFoundInTheIconDirectoriesAndABuiltInNameKeepsWinning() throws {
        let scratch = Scratch()
        let icons = try Self.directory(scratch)
        let policy = IconPolicy(directories: [scratch.path + "/none", icons])
        #expect(try Self.icon("1234", policy) == icons + "/1234.gif")
        #expect(try Self.icon("i1234", policy) == icons + "/1234.gif")
        #expect(try Self.icon("a1234", policy) == icons + "/1234.gif")
        #expect(try Self.icon("weather", policy) == icons + "/weather.png", "the still format first, as AWTRIX looks")
        #expect(try Self.icon("bell", policy) == "bell", "a built-in icon is not looked up")
        #expect(try Self.icon("nosuch", policy) == "nosuch", "found nowhere: as it came")
        #expect(NookIconNames.warning(for: "nosuch") != nil, "and the answer says it is unknown")
        #expect(try Self.icon("../icons/1234", policy) == "../icons/1234", "never a path")
        // Without directories nothing is read.
        #expect(try Self.icon("1234", IconPolicy(directories: [])) == "1234")
    }

    @Test func m3_aFIFODeviceHugeFileLinkOutOrBrokenGIFNamedAsAnIconIsRefusedAtOnce() throws {
        let scratch = Scratch()
        let icons = try Self.directory(scratch)
        let policy = IconPolicy(directories: [icons])
        #expect(mkfifo(icons + "/pipe.gif", 0o644) == 0)
        symlink("/dev/zero", icons + "/zero.png")
        let sparse = icons + "/huge.gif"
        _ = FileManager.default.createFile(atPath: sparse, contents: nil)
        #expect(truncate(sparse, 1 << 40) == 0, "a 1 TiB sparse file")
        try PNG.write(Frame(width: 8, height: 8, fill: RGB(hex: 0xFF0000).pixel), to: scratch.path + "/outside.png")
        symlink(scratch.path + "/outside.png", icons + "/out.png")
        try Data(Self.animated.prefix(40)).write(to: URL(fileURLWithPath: icons + "/cut.gif"))
        try Data(Array("GIF89a".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0x3B]).write(to: URL(fileURLWithPath: icons + "/wide.gif"))
        for (name, problem) in [
            ("pipe", "icon 'pipe' names the icon file pipe.gif: pipe.gif → \(icons)/pipe.gif: is a FIFO, not a regular file"),
            ("zero", "icon 'zero' names the icon file zero.png: zero.png is not an icon file in an icon directory nookd may read (daemon.icon_directories: \(icons))"),
            ("huge", "icon 'huge' names the icon file huge.gif: huge.gif → \(icons)/huge.gif: is 1099511627776 bytes; an icon file may have at most 1048576"),
            ("out", "icon 'out' names the icon file out.png: out.png is not an icon file in an icon directory nookd may read (daemon.icon_directories: \(icons))"),
            ("cut", "icon 'cut' names the icon file cut.gif: cut.gif → \(icons)/cut.gif: cannot be decoded as a GIF: the file ends at offset 40 inside image 1's data"),
            ("wide", "icon 'wide' names the icon file wide.gif: wide.gif → \(icons)/wide.gif: cannot be decoded as a GIF: the file is 65535x65535 pixels; a GIF may be at most 1024x1024"),
        ] {
            #expect(throws: ProtocolError(.invalid, field: "activity.icon", problem)) { try Self.icon(name, policy) }
        }
    }

    @Test func m3_aNameWithALineBreakIsNeverLookedUpAsAFile() throws {
        // A refusal naming such a file would be published on nook-mqtt's error topic and logged
        // by the bridges, where a line break starts a forged line: the name is no file's name.
        let scratch = Scratch()
        let icons = try Self.directory(scratch)
        _ = FileManager.default.createFile(atPath: icons + "/nl\nforged.png", contents: Data("not a PNG".utf8))
        #expect(IconPolicy.fileNames(for: "nl\nforged").isEmpty)
        #expect(try Self.icon("nl\nforged", IconPolicy(directories: [icons])) == "nl\nforged", "kept as it came, said as unknown")
    }
}

/// The same through nookd and nookctl on a panel (M3): ids and names drawn from their files,
/// an animated GIF said to be drawn still, a name found nowhere said, every warning in the log.
@Suite("M3 icon files through nookd", .serialized, .ownThreads)
struct IconLookupEndToEndTests {
    @Test func m3_nookctlSendsIdsAndNamesNookdDrawsTheirFilesAndSaysWhatItCannot() throws {
        let scratch = Scratch()
        let icons = try IconLookupTests.directory(scratch)
        let config = scratch.file("nook.toml", "[daemon]\nicon_directories = [\"\(icons)\"]\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        let animated = try nookctlWithin(15, ["enqueue", "--title", "Door", "--icon", "a1234", "--json", "--dwell", "3600"], socket: daemon.socket)
        #expect(animated.status == 0, "\(animated)")
        let still = "the panel draws the animated icon '\(icons)/1234.gif' still, its first frame"
        #expect(animated.error == "nookctl: warning: \(still)\n", "\(animated)")
        let named = try nookctlWithin(15, ["enqueue", "--title", "Weather", "--icon", "weather", "--dwell", "3600"], socket: daemon.socket)
        #expect(named.status == 0 && named.error.isEmpty, "\(named)")
        let unknown = try nookctlWithin(15, ["enqueue", "--title", "Heat", "--icon", "nosuch", "--dwell", "3600"], socket: daemon.socket)
        #expect(unknown.status == 0 && unknown.error.contains("nookctl: warning: unknown icon 'nosuch'"), "\(unknown)")
        // An hour's dwell each: a loaded machine's minute must not end a card before it is listed.
        let cards = try daemon.activities().flatMap { ($0.current.map { [$0] } ?? []) + $0.pending }
        #expect(Set(cards.compactMap(\.systemImage)) == [icons + "/1234.gif", icons + "/weather.png", "nosuch"], "\(cards)")
        // What the answers said is in nookd's log too.
        try eventually("the log lines") { daemon.log.contains(still) && daemon.log.contains("unknown icon 'nosuch'") }
        #expect(!daemon.log.contains("drawing the generic glyph"), "\(daemon.log)")
        #expect(daemon.stop().status == 0)
    }

    @Test(.enabled(if: MQTTTools.available, MQTTTools.skipReason))
    func m3_mqttCardsAndAWTRIXAppsNameIconsNookdFindsAsFiles() throws {
        let files = Scratch()
        let icons = try IconLookupTests.directory(files)
        let setup = try AWTRIXMQTTTests.Setup(nookdConfig: "[daemon]\nicon_directories = [\"\(icons)\"]\n")
        try setup.daemon.request(.suspend(module: nil))
        try setup.broker.publish("nook/b1/activity", #"{"title": "Door", "icon": "1234"}"#)
        try setup.broker.publish("nook/b1/custom/weather", #"{"text": "21 C", "icon": "weather"}"#)
        try eventually("the card and the app") { try !setup.daemon.activities().flatMap(\.pending).isEmpty && setup.app("weather") != nil }
        #expect(try setup.daemon.activities().flatMap(\.pending).first?.systemImage == icons + "/1234.gif")
        #expect(try setup.app("weather")?.icon == icons + "/weather.png")
        #expect(!setup.bridge.log.contains("unknown icon"), "\(setup.bridge.log)")
    }
}
