#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NookActivities
import NookDisplay

/// What an LED display shows with no card on it (R4 on a matrix).
public enum PixelHome: Hashable, Sendable {
    case clock, blank, text(String)
    /// The mood light (M1): every LED one colour, `0xRRGGBB`, a strip's too.
    case light(UInt32)

    /// A mood light is a lamp: never blanked for idleness.
    public var isLamp: Bool {
        if case .light = self { true } else { false }
    }
}

/// Draws activities for LED matrices and strips (L3, L4): the second renderer beside the
/// cairo card renderer, pure Swift, one frame pixel per LED.
///
/// A matrix card is the icon in the tint at the left (on matrices 24 or more LEDs wide), the
/// title in the bitmap font beside it, the progress as a bar on the bottom row. A title that
/// does not fit scrolls as a marquee at ``scrollSpeed``: one full pass is the title moving
/// its own width plus a gap, after which it is back where it started. A blocker pulses. A
/// strip (one row of LEDs) shows the tint, progress as the lit part, a blocker breathing.
public struct PixelRenderer: Sendable {
    public let size: PixelSize
    /// Marquee speed in LED columns per second.
    public var scrollSpeed: Double
    /// Columns between the end of a scrolling title and its start coming round again.
    public static let marqueeGap = 8
    /// One pulse of a blocker on a matrix, one breath on a strip.
    public static let pulsePeriod: Duration = .milliseconds(1600)
    public static let breathPeriod: Duration = .seconds(3)

    public init(size: PixelSize, scrollSpeed: Double = 16) {
        precondition(scrollSpeed > 0, "scrollSpeed must be positive")
        self.size = size
        self.scrollSpeed = scrollSpeed
    }

    /// A single row (or column) of LEDs: the ambient mode (L4).
    public var isStrip: Bool { size.height == 1 || size.width == 1 }

    /// 5x7 where a bottom row is left for the progress bar, else 4x6.
    public var font: BitmapFont { size.height >= 8 ? .fixed5x7 : .fixed4x6 }

    var showsIconBesideText: Bool { size.width >= 24 && size.height >= 8 }

    /// The columns the title may use: right of the icon, or all of them without one.
    func textRegion(for activity: NookActivity) -> Range<Int> {
        showsIconBesideText && activity.systemImage != nil ? 9..<size.width : 0..<size.width
    }

    /// What scrolls on a narrow matrix: the icon then the title, as one strip.
    func content(for activity: NookActivity) -> (text: String, leadingIcon: Bool) {
        (activity.title, !showsIconBesideText && size.height >= 8 && activity.systemImage != nil)
    }

    /// The width in columns of what must fit the text region.
    func contentWidth(for activity: NookActivity) -> Int {
        let (text, icon) = content(for: activity)
        return font.width(of: text) + (icon ? 9 : 0)
    }

    /// What a card (or an app, whose text is its title) asks for that this matrix will not show,
    /// in words for its sender (M3): characters the bitmap font lacks (drawn as `?`), a subtitle
    /// (a matrix shows the title alone) and a built-in icon name with no 8x8 drawing (the
    /// ringed dot). An icon file is drawn (fitted into the icon's 8x8, a GIF animated).
    /// `known`: whether a name is one of the board's icons at all (an unknown one is said
    /// elsewhere, once). A strip shows the tint alone, as documented: nothing is said for it.
    public func undrawn(title: String?, subtitle: String?, icon: String?, titleField: String = "title",
                        known: (String) -> Bool = { _ in true }) -> [String] {
        guard !isStrip else { return [] }
        var said: [String] = []
        if let title {
            let missing = font.undrawable(in: title)
            if !missing.isEmpty {
                // Each named as the sender wrote it, on one line (a line break or an escape
                // sequence is written out) and bounded.
                let shown = missing.prefix(Self.undrawableShown).map { SaidText.shown(String($0), scalars: 8) }.joined()
                    + (missing.count > Self.undrawableShown ? "…" : "")
                said.append("the LED font cannot draw '\(shown)' in the \(titleField); \(missing.count == 1 ? "it shows" : "they show") as '?'")
            }
        }
        if let subtitle, !subtitle.isEmpty {
            said.append("an LED matrix shows the title only: the subtitle is not drawn")
        }
        if let icon, size.height >= 8, PixelIcons.art[icon] == nil, !NookIconNames.namesFile(icon), known(icon) {
            said.append("the LED matrix has no 8x8 drawing of the icon '\(SaidText.shown(icon, scalars: 100))': it shows the ringed dot")
        }
        return said
    }

    /// How many undrawable characters a warning names before it ends with `…`.
    static let undrawableShown = 24

    /// How long one full marquee pass takes, or nil when the title fits (or on a strip).
    public func marqueePass(for activity: NookActivity) -> Duration? {
        guard !isStrip else { return nil }
        if let face = activity.app { return appScrollPass(activity, face) }
        let width = contentWidth(for: activity)
        let region = textRegion(for: activity)
        guard width > region.count else { return nil }
        return .nookSeconds(Double(width + Self.marqueeGap) / scrollSpeed)
    }

    /// Where a card's marquee is after an update in place (U1): `scrolled`, the time into the
    /// pass to draw from now on, and `held`, the time into the last pass kept while the text
    /// fits, for when it scrolls again.
    ///
    /// - A text that scrolled and still scrolls keeps its place: the offset depends only on the
    ///   time into the pass, not on the text's width, so the old pass's time carries over (the
    ///   whole elapsed time would land elsewhere in a pass of another length).
    /// - A text that scrolled and now fits keeps that time into the pass (`held`) while it fits.
    /// - A text that scrolls again goes on from the time held, so a value flapping between a text
    ///   that fits and one that scrolls (`99 W`, `100 W`) is seen to its end over its scrolling
    ///   spells; one that never scrolled on this presentation starts at rest, at its start.
    /// - Where the new pass is shorter than the time to go on from, it starts at rest.
    public func marqueeAfterUpdate(of old: NookActivity, to new: NookActivity, elapsed: Duration,
                                   held: Duration?) -> (scrolled: Duration, held: Duration?) {
        let oldPass = marqueePass(for: old)
        guard let newPass = marqueePass(for: new) else {
            guard let oldPass else { return (elapsed, held) }
            return (elapsed, timeInto(oldPass, elapsed))
        }
        let from = oldPass.map { timeInto($0, elapsed) } ?? held ?? .zero
        return (from < newPass ? from : .zero, nil)
    }

    /// `elapsed` into the current pass, in whole `Duration` arithmetic: a time carried over and
    /// back must land on the same column, not one off where seconds as a `Double` round.
    private func timeInto(_ pass: Duration, _ elapsed: Duration) -> Duration {
        guard elapsed > .zero, pass > .zero else { return .zero }
        var into = elapsed - pass * Int((elapsed / pass).rounded(.down))
        while into >= pass { into -= pass }
        while into < .zero { into += pass }
        return into
    }

    /// Whether the card changes with time (marquee, pulse, breath): the screen then redraws it.
    public func isAnimated(_ activity: NookActivity) -> Bool {
        // An app's card is a blocker only so that the rotation ends it: it does not pulse (A5).
        (activity.isBlocker && activity.app == nil) || marqueePass(for: activity) != nil
    }

    /// Draws `activity` as it looks `elapsed` after it was presented, its marquee `scrolled`
    /// into its pass (`elapsed` unless given). Two times, as an update in place moves the
    /// marquee's (``marqueeAfterUpdate(of:to:elapsed:held:)``) but not the pulse's or breath's:
    /// a blocker's brightness would jump at every update. `icon`: the picture of the icon file
    /// the activity names, read by the screen (an animated one at its frame for `elapsed`);
    /// without it a file's icon is the ringed dot.
    public func render(_ activity: NookActivity, elapsed: Duration, scrolled: Duration? = nil, icon image: PixelIconImage? = nil,
                       into frame: inout Frame) {
        precondition(frame.size == size, "a \(frame.size) frame for a \(size) renderer")
        frame.fill(0xFF00_0000)
        let tint = PixelPalette.color(for: activity.tint)
        let seconds = max(0, elapsed.nookSeconds)
        let scrolledSeconds = max(0, (scrolled ?? elapsed).nookSeconds)
        if let face = activity.app {
            renderApp(activity, face, seconds: scrolledSeconds, icon: image.map { ($0, elapsed) }, into: &frame)
            return
        }
        if isStrip {
            var level = 1.0
            if activity.isBlocker {
                // Breathing: from nearly dark to full and back, slowly, like a sleeping laptop's light.
                level = 0.04 + 0.96 * (0.5 - 0.5 * cos(2 * Double.pi * seconds / Self.breathPeriod.nookSeconds))
            }
            renderStrip(activity, tint: tint, level: level, into: &frame)
            return
        }
        var level = 1.0
        if activity.isBlocker {
            // A pulse between 15 % and full: never dark, so the card is always readable.
            level = 0.575 + 0.425 * cos(2 * Double.pi * seconds / Self.pulsePeriod.nookSeconds)
        }
        let region = textRegion(for: activity)
        let (text, leadingIcon) = content(for: activity)
        // The tint is the icon's colour; without an icon it is the title's.
        let iconShown = leadingIcon || region.lowerBound > 0
        let textColor = PixelPalette.scaled(iconShown ? PixelPalette.text : tint, level)
        let tintColor = PixelPalette.scaled(tint, level)
        let picture = image.map { ($0, elapsed) }
        if showsIconBesideText, let icon = activity.systemImage {
            drawIcon(icon, picture, at: 0, 0, color: tintColor, level: level, into: &frame)
        }
        let width = contentWidth(for: activity)
        var offset = 0
        if width > region.count {
            let cycle = width + Self.marqueeGap
            offset = Int((scrolledSeconds * scrollSpeed).rounded(.down)) % cycle
            draw(text, icon: leadingIcon ? activity.systemImage : nil, picture, at: region.lowerBound - offset + cycle,
                 clip: region, text: textColor, tint: tintColor, level: level, into: &frame)
        }
        draw(text, icon: leadingIcon ? activity.systemImage : nil, picture, at: region.lowerBound - offset,
             clip: region, text: textColor, tint: tintColor, level: level, into: &frame)
        if let progress = activity.progress, size.height >= 7 {
            let bar = region
            let lit = Int((progress * Double(bar.count)).rounded())
            for x in bar { frame[x, size.height - 1] = x - bar.lowerBound < lit ? tintColor : PixelPalette.scaled(tint, level * 0.12) }
        }
    }

    private func draw(_ text: String, icon: String?, _ picture: (PixelIconImage, Duration)?, at x: Int, clip: Range<Int>,
                      text textColor: UInt32, tint: UInt32, level: Double, into frame: inout Frame) {
        guard x < clip.upperBound else { return }
        // Drawn into a scratch strip the width of the clip, so nothing spills onto the icon.
        var scratch = Frame(width: clip.count, height: size.height)
        var left = x - clip.lowerBound
        if let icon {
            drawIcon(icon, picture, at: left, 0, color: tint, level: level, into: &scratch)
            left += 9
        }
        font.draw(text, at: left, 0, color: textColor, into: &scratch)
        for y in 0..<size.height {
            for column in 0..<clip.count where scratch[column, y] != 0xFF00_0000 {
                frame[clip.lowerBound + column, y] = scratch[column, y]
            }
        }
    }

    /// The icon at (`x`, `y`): the icon file's picture at its frame for the time given, when the
    /// screen read one, else the 8x8 drawing of the name in `color`.
    func drawIcon(_ name: String, _ picture: (PixelIconImage, Duration)?, at x: Int, _ y: Int, color: UInt32, level: Double,
                  into frame: inout Frame) {
        guard let (image, elapsed) = picture else { return PixelIcons.draw(name, at: x, y, color: color, into: &frame) }
        image.draw(frame: image.frameIndex(at: elapsed), at: x, y, level: level, into: &frame)
    }

    /// Whether an icon is drawn for `activity` at all (a strip and a matrix under 8 rows draw none).
    public func drawsIcon(_ activity: NookActivity) -> Bool { !isStrip && size.height >= 8 && activity.systemImage != nil }

    /// The tint at `level`, progress as the lit share (L4).
    func renderStrip(_ activity: NookActivity, tint: RGB, level: Double, into frame: inout Frame) {
        // A vertical strip fills from the top, as a horizontal one fills from the left.
        let count = max(size.width, size.height)
        let lit = activity.progress.map { Int(($0 * Double(count)).rounded()) } ?? count
        for index in 0..<count {
            frame.pixels[index] = PixelPalette.scaled(tint, index < lit ? level : level * 0.1)
        }
    }

    /// Draws the home content: a pixel clock `HH:MM` (on an 8x8 the hour, with the minutes as
    /// a bar along the bottom row), a status text, or nothing. A strip is dark at home.
    public func renderHome(_ home: PixelHome, hour: Int, minute: Int, into frame: inout Frame) {
        if case .light(let color) = home { return frame.fill(0xFF00_0000 | (color & 0xFF_FFFF)) }
        frame.fill(0xFF00_0000)
        guard !isStrip else { return }
        let color = PixelPalette.clock.pixel
        switch home {
        case .blank, .light:
            return
        case .text(let text):
            font.draw(text, at: 0, 0, color: PixelPalette.text.pixel, into: &frame)
        case .clock:
            let hours = (hour < 10 ? "0" : "") + String(hour)
            let minutes = (minute < 10 ? "0" : "") + String(minute)
            // The colon is one column of two dots, not a whole glyph: HH:MM then fits 17 columns in 4x6.
            let digits = font.width(of: hours)
            let width = digits * 2 + 3
            if width <= size.width {
                let x = (size.width - width) / 2
                let top = max(0, (size.height - font.height) / 2)
                font.draw(hours, at: x, top, color: color, into: &frame)
                let colon = x + digits + 1
                for row in [top + font.ascent / 3, top + font.ascent * 2 / 3 + 1] where row < size.height {
                    frame[colon, row] = color
                }
                font.draw(minutes, at: colon + 2, top, color: color, into: &frame)
            } else {
                let small = BitmapFont.fixed4x6
                small.draw(hours, at: (size.width - small.width(of: hours)) / 2, 0, color: color, into: &frame)
                let lit = (minute * size.width + 59) / 60
                for x in 0..<lit { frame[x, size.height - 1] = color }
            }
        }
    }
}
