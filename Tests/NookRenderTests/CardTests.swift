#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookActivities
import NookDisplay
import NookRender
import NookTestTraits
import Testing

@Suite("R1 R2 R3 cards, theme, icons", .cpuBound)
struct CardTests {
    init() { pinFonts() }

    @Test(arguments: panelSizes)
    func r1_layoutSuitsEachPanelClassAndStaysInside(panel: PixelSize) {
        let (size, _) = logicalSize(of: panel)
        let card = CardRenderer(theme: .dark).render(buildFinished, size: size)
        let layout = card.layout
        #expect(layout.arrangement == (size.width >= 3 * size.height ? .wide : .stacked))
        for box in [layout.card, layout.icon, layout.title] + [layout.subtitle, layout.progress].compactMap({ $0 }) {
            #expect(box.x >= 0 && box.y >= 0 && box.x + box.width <= size.width && box.y + box.height <= size.height,
                    "\(box) lies inside the \(size) panel")
        }
        for box in [layout.icon, layout.title] + [layout.subtitle, layout.progress].compactMap({ $0 }) {
            #expect(box.x >= layout.card.x && box.x + box.width <= layout.card.x + layout.card.width + 1, "\(box) inside the card")
        }
        if layout.arrangement == .wide {
            #expect(layout.title.x > layout.icon.x + layout.icon.width, "wide: text right of the icon")
        } else {
            #expect(layout.subtitle!.y >= layout.icon.y + layout.icon.height, "stacked: subtitle under the icon")
        }
        // Nothing is drawn on the panel's outer edge: the margin shows the background.
        let background = Theme.dark.background.pixel
        let edge = (0..<size.width).flatMap { [card.frame[$0, 0], card.frame[$0, size.height - 1]] }
            + (0..<size.height).flatMap { [card.frame[0, $0], card.frame[size.width - 1, $0]] }
        #expect(edge.allSatisfy { $0 == background }, "nothing drawn on the panel's outer edge")
    }

    @Test(arguments: panelSizes)
    func r1_tintTextAndProgressAreWhereTheLayoutSays(panel: PixelSize) throws {
        let (size, _) = logicalSize(of: panel)
        let theme = Theme.dark
        let card = CardRenderer(theme: theme).render(buildFinished, size: size)
        let green = theme.palette[.green]!.pixel
        let icon = card.layout.icon
        // The tint disc: a point between the disc's edge and its glyph.
        #expect(card.frame[icon.x + icon.width / 2, icon.y + icon.height / 8] == green)
        #expect(ink(in: card.frame, box: card.layout.title, background: theme.cardBackground) > 50, "title has ink")
        #expect(ink(in: card.frame, box: try #require(card.layout.subtitle), background: theme.cardBackground) > 20)
        let bar = try #require(card.layout.progress)
        let row = bar.y + bar.height / 2
        #expect(card.frame[bar.x + bar.width / 2, row] == green, "75% filled: the middle is tint")
        #expect(card.frame[bar.x + bar.width * 9 / 10, row] != green, "the last tenth is track")
    }

    @Test func r1_longTitlesAreEllipsisedAndShortOnesAreNot() {
        let renderer = CardRenderer(theme: .dark)
        let long = NookActivity(title: String(repeating: "Very long build title ", count: 12), subtitle: String(repeating: "detail ", count: 60))
        for panel in panelSizes {
            let (size, _) = logicalSize(of: panel)
            let layout = renderer.render(long, size: size).layout
            #expect(layout.titleEllipsized, "\(size)")
            #expect(layout.subtitleEllipsized, "\(size)")
            #expect(layout.title.x + layout.title.width <= layout.card.x + layout.card.width)
            #expect(!renderer.render(NookActivity(title: "Done"), size: size).layout.titleEllipsized)
        }
    }

    @Test(arguments: [
        "Café crème, naïve façade", "Ελληνικά και Кириллица", "עברית ועربي", "构建完成 ビルド完了",
        "Doorbell 🔔 👋🏽", "Build ✅ passed",
    ])
    func r1_anyScriptAndColourEmojiRenderWithoutTofu(title: String) {
        let card = CardRenderer(theme: .light).render(NookActivity(title: title, subtitle: title), size: PixelSize(width: 1280, height: 400))
        #expect(card.layout.unknownGlyphs == 0, "every character found a font")
        #expect(ink(in: card.frame, box: card.layout.title, background: Theme.light.cardBackground) > 50)
    }

    @Test func r1_colourEmojiAreDrawnInColour() {
        let card = CardRenderer(theme: .dark).render(NookActivity(title: "🍏🍏🍏🍏"), size: PixelSize(width: 1280, height: 400))
        let box = card.layout.title
        var greenish = 0
        for y in box.y..<box.y + box.height {
            for x in box.x..<box.x + box.width {
                let pixel = RGB(pixel: card.frame[x, y])
                if Int(pixel.green) > Int(pixel.red) + 40 && Int(pixel.green) > Int(pixel.blue) + 40 { greenish += 1 }
            }
        }
        #expect(greenish > 200, "green apples, not white outlines")
    }

    @Test func r1_goldenImagesMatchAtEveryPanelSizeAndTheme() throws {
        let recording = getenv("NOOK_RECORD_GOLDEN") != nil
        for panel in panelSizes {
            for theme in [Theme.dark, Theme.light] {
                let (size, rotation) = logicalSize(of: panel)
                let frame = CardRenderer(theme: theme).render(buildFinished, size: size).frame.rotated(rotation)
                let path = "\(testDirectory)/Golden/card-\(panel)-\(theme.appearance).png"
                if recording { try PNG.write(frame, to: path) }
                let reference = try PNG.read(from: path)
                let match = GoldenComparison(frame, reference)
                #expect(match.passes, "\(path): \(match) (record anew with NOOK_RECORD_GOLDEN=1 if the change is intended)")
            }
        }
    }

    @Test(arguments: Theme.Appearance.allCases)
    func r2_everyPaletteNameAndHexResolvesInBothThemes(appearance: Theme.Appearance) {
        let theme = Theme.named(appearance)
        #expect(theme.palette.count == NookTint.Name.allCases.count)
        let size = PixelSize(width: 320, height: 170)
        for name in NookTint.Name.allCases {
            let card = CardRenderer(theme: theme).render(NookActivity(title: "t", tint: .named(name)), size: size)
            let icon = card.layout.icon
            #expect(card.frame[icon.x + icon.width / 2, icon.y + icon.height / 8] == theme.palette[name]!.pixel, "\(name)")
        }
        #expect(theme.color(for: .rgb(red: 1, green: 2, blue: 3)) == RGB(red: 1, green: 2, blue: 3))
        #expect(theme.color(for: .accent) == theme.accent)
    }

    @Test func r2_darkAndLightThemesPaintTheirOwnCardColours() {
        for theme in [Theme.dark, Theme.light] {
            let card = CardRenderer(theme: theme).render(NookActivity(title: "x"), size: PixelSize(width: 1280, height: 400))
            let box = card.layout.card
            #expect(card.frame[box.x + box.width - 40, box.y + box.height / 2] == theme.cardBackground.pixel)
            #expect(card.frame[2, 2] == theme.background.pixel)
        }
        #expect(Theme.dark.cardBackground != Theme.light.cardBackground)
    }

    @Test func r2_textAndCornersScaleWithThePanel() {
        let small = CardRenderer(theme: .dark).render(buildFinished, size: PixelSize(width: 1280, height: 400)).layout
        let large = CardRenderer(theme: .dark).render(buildFinished, size: PixelSize(width: 1920, height: 480)).layout
        let ratio = Double(large.title.height) / Double(small.title.height)
        #expect(ratio > 1.1 && ratio < 1.3, "title grows with the panel height (480/400 = 1.2), got \(ratio)")
        var bigger = Theme.dark
        bigger.titleScale = 1.5
        let scaled = CardRenderer(theme: bigger).render(buildFinished, size: PixelSize(width: 1280, height: 400)).layout
        #expect(scaled.title.height > small.title.height)
    }

    @Test func r3_theCatalogueHasAtLeast40NamesAndEachDrawsARealGlyph() {
        #expect(IconCatalog.glyphs.count >= 40)
        for name in ["hammer", "checkmark.circle", "xmark.octagon", "bell", "envelope", "exclamationmark.triangle",
                     "arrow.down.circle", "wifi", "battery.25", "music.note", "calendar", "clock", "flame", "bolt",
                     "gear", "trash", "lock", "house", "cloud", "person", "cart"] {
            #expect(IconCatalog.glyphs[name] != nil, "\(name) is catalogued")
        }
        let renderer = CardRenderer(theme: .dark)
        for name in IconCatalog.glyphs.keys {
            let card = renderer.render(NookActivity(title: "t", systemImage: name), size: PixelSize(width: 240, height: 135))
            #expect(card.layout.unknownGlyphs == 0, "\(name) has a glyph in the icon font")
            #expect(card.warnings.isEmpty)
        }
    }

    @Test func r3_theIconNamesNookctlListsAreTheRenderersTable() {
        #expect(NookIconNames.all == IconCatalog.glyphs.keys.sorted(), "NookIconNames.all (nookctl icons, nookd's warning) lists exactly the glyph table's names")
        for name in NookIconNames.all { #expect(NookIconNames.warning(for: name) == nil, "\(name) is drawn as asked") }
    }

    @Test func r3_anUnknownNameFallsBackToTheGenericGlyphWithAWarning() {
        let renderer = CardRenderer(theme: .dark)
        let unknown = renderer.render(NookActivity(title: "t", systemImage: "no.such.symbol"), size: PixelSize(width: 1280, height: 400))
        #expect(unknown.warnings.count == 1 && unknown.warnings[0].contains("no.such.symbol"))
        let generic = renderer.render(NookActivity(title: "t", systemImage: "dot.circle"), size: PixelSize(width: 1280, height: 400))
        #expect(unknown.frame == generic.frame, "drawn as the generic glyph")
    }

    @Test func r3_aPNGPathIsDrawnAsTheIcon() throws {
        let path = "/tmp/nook-test-icon-\(getpid()).png"
        try PNG.write(Frame(width: 64, height: 64, fill: RGB(hex: 0xFF0000).pixel), to: path)
        defer { unlink(path) }
        let card = CardRenderer(theme: .dark).render(NookActivity(title: "t", systemImage: path, tint: .named(.blue)), size: PixelSize(width: 1280, height: 400))
        let icon = card.layout.icon
        #expect(card.warnings.isEmpty)
        #expect(card.frame[icon.x + icon.width / 2, icon.y + icon.height / 2] == RGB(hex: 0xFF0000).pixel)

        let missing = CardRenderer(theme: .dark).render(NookActivity(title: "t", systemImage: "/nonexistent/icon.png"), size: PixelSize(width: 1280, height: 400))
        #expect(missing.warnings.count == 1 && missing.warnings[0].contains("/nonexistent/icon.png"))
    }
}

/// Not among the computing card tests: their shared thread would count its turn's wait in this
/// test's time limit, which is here to fail a FIFO that blocks, not a busy machine.
@Suite("R3 icon files that would block", .ownThreads)
struct IconFileTests {
    /// A FIFO once hung the screen for good (cairo's `fopen` waits for a writer); a device never
    /// ends and a sparse file can claim terabytes. Each is refused at once, naming the problem.
    @Test(.timeLimit(.minutes(1)))
    func r3_iconFilesThatWouldBlockOrNeverEndAreRefusedAtOnce() throws {
        let directory = "/tmp/nook-test-icons-\(getpid())"
        mkdir(directory, 0o755)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/fifo.png"
        #expect(mkfifo(fifo, 0o644) == 0)
        let sparse = directory + "/sparse.png"
        let fd = open(sparse, O_CREAT | O_WRONLY, 0o644)
        #expect(ftruncate(fd, 8 << 30) == 0)
        close(fd)
        let text = directory + "/text.png"
        try "not a picture".write(to: text)
        let huge = directory + "/huge.png"
        try PNG.write(Frame(width: 2000, height: 10), to: huge)
        let link = directory + "/link.png"
        symlink(fifo, link)

        let expected = [
            (fifo, "is a FIFO, not a regular file"), ("/dev/zero", "is a character device, not a regular file"),
            (directory, "is a directory, not a regular file"), (sparse, "is 8589934592 bytes; an icon file may have at most 1048576"),
            (text, "is not a PNG file"), (huge, "is 2000x10 pixels; an icon may be at most 1024x1024"), (link, "is a FIFO, not a regular file"),
        ]
        for (path, problem) in expected {
            let card = CardRenderer(theme: .dark).render(NookActivity(title: "t", systemImage: path), size: PixelSize(width: 320, height: 170))
            #expect(card.warnings == ["icon \(path): \(problem); drawing the generic glyph"])
        }
        #expect(throws: IconFileError(path: link, problem: "is a symbolic link")) { try IconFile.load(path: link, followingSymlinks: false) }
        let good = directory + "/good.png"
        try PNG.write(Frame(width: 16, height: 8, fill: RGB(hex: 0x00FF00).pixel), to: good)
        let image = try IconFile.load(path: good)
        #expect(image.width == 16 && image.height == 8)
    }
}

extension String {
    fileprivate func write(to path: String) throws {
        let fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
        defer { close(fd) }
        _ = withCString { Glibc.write(fd, $0, strlen($0)) }
    }
}
