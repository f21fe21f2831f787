import NookActivities
import NookDisplay

/// An app on an LED matrix (A5), drawn as AWTRIX 3 draws a custom app: the icon in the app's
/// tint, the text in the text area beside it — centred when it fits; when it does not, it
/// starts at the left of the area, holds there for ``appScrollHold``, then moves left until
/// it has gone and starts again —, each fragment in its own colour, the progress as a line
/// along the bottom under the text, a chart as columns or a polyline in place of the text, a
/// drawing over all of it; an app without words draws no text (its title is its name).
/// An app holds no one up, so it neither pulses on a matrix nor breathes on a strip, though
/// its card is a blocker. Every frame is a function of the time since the card came: the
/// screen's injected clock drives the scroll.
extension PixelRenderer {
    /// How long a scrolling text rests at its start before it moves (AWTRIX waits a second).
    public static let appScrollHold: Duration = .seconds(1)

    /// Text the app shows without a tint of its own: white, as AWTRIX's default text colour,
    /// when the app's tint is the accent (the tint nobody chose); else the tint, as AWTRIX
    /// draws the text in the app's `color`.
    static func appTextColor(_ tint: NookTint) -> RGB {
        tint == .accent ? PixelPalette.text : appColor(tint)
    }

    /// The tint as an LED shows it, white instead when it is too dark to light one (black is
    /// the LEDs off: an app tinted black would leave the matrix dark, as if nothing showed).
    static func appColor(_ tint: NookTint) -> RGB {
        let color = PixelPalette.color(for: tint)
        return max(color.red, color.green, color.blue) < 24 ? PixelPalette.text : color
    }

    func appLayout(for activity: NookActivity) -> PixelAppLayout {
        PixelAppLayout(size: size, font: font, hasIcon: activity.systemImage != nil, hasProgress: activity.progress != nil)
    }

    /// Columns the app's text takes, the leading icon included (none when a chart replaces it).
    func appContentWidth(_ activity: NookActivity, _ face: NookAppFace, _ layout: PixelAppLayout) -> Int {
        guard face.chart == nil, !face.wordless else { return 0 }
        return font.width(of: activity.title) + (layout.leadingIcon ? 9 : 0)
    }

    /// One scroll pass of the app's text (rest, then move until gone), or nil when it fits.
    func appScrollPass(_ activity: NookActivity, _ face: NookAppFace) -> Duration? {
        let layout = appLayout(for: activity)
        let width = appContentWidth(activity, face, layout)
        guard width > layout.columns.count else { return nil }
        return Self.appScrollHold + (.nookSeconds(Double(width + 1) / scrollSpeed) ?? .zero)
    }

    /// How far left the text has moved `seconds` into its scroll: `width` + 1 at the end of a
    /// pass, when the last column has gone too.
    func appScrollOffset(width: Int, seconds: Double) -> Int {
        let hold = Self.appScrollHold.nookSeconds
        let pass = hold + Double(width + 1) / scrollSpeed
        let into = seconds.truncatingRemainder(dividingBy: pass)
        guard into >= hold else { return 0 }
        return min(width + 1, Int(((into - hold) * scrollSpeed).rounded(.down)))
    }

    func renderApp(_ activity: NookActivity, _ face: NookAppFace, seconds: Double, icon picture: (PixelIconImage, Duration)? = nil,
                   into frame: inout Frame) {
        let tint = Self.appColor(activity.tint)
        if isStrip {
            renderStrip(activity, tint: tint, level: 1, into: &frame)
            return
        }
        let layout = appLayout(for: activity)
        let text = Self.appTextColor(activity.tint)
        if let icon = activity.systemImage, let place = layout.icon {
            drawIcon(icon, picture, at: place.x, place.y, color: tint.pixel, level: 1, into: &frame)
        }
        if let chart = face.chart {
            drawChart(chart, in: layout, color: text.pixel, into: &frame)
        } else if !face.wordless {
            let width = appContentWidth(activity, face, layout)
            let x = width <= layout.columns.count
                ? layout.columns.lowerBound + (layout.columns.count - width) / 2
                : layout.columns.lowerBound - appScrollOffset(width: width, seconds: seconds)
            drawRuns(face.runs(of: activity.title), icon: layout.leadingIcon ? activity.systemImage : nil, picture, at: x, layout: layout,
                     text: text, tint: tint, into: &frame)
        }
        if let progress = activity.progress, let row = layout.progressRow {
            let lit = Int((progress * Double(layout.columns.count)).rounded())
            for x in layout.columns {
                frame[x, row] = x - layout.columns.lowerBound < lit ? tint.pixel : PixelPalette.scaled(tint, 0.12)
            }
        }
        // Over everything, as AWTRIX draws it.
        if let drawing = face.drawing { drawDrawing(drawing, into: &frame) }
    }

    /// The runs' characters, each in its run's colour (a character two runs make together, a
    /// letter and a combining mark, takes the first one's), clipped to the text area.
    private func drawRuns(_ runs: [NookApp.Fragment], icon: String?, _ picture: (PixelIconImage, Duration)?, at x: Int, layout: PixelAppLayout, text: RGB, tint: RGB,
                          into frame: inout Frame) {
        var left = x
        if let icon {
            var scratch = Frame(width: 8, height: 8)
            drawIcon(icon, picture, at: 0, 0, color: tint.pixel, level: 1, into: &scratch)
            copy(scratch, at: left, layout.rows.lowerBound, clip: layout, into: &frame)
            left += 9
        }
        // Colours by scalar, then read a character at a time: fragments joined may fuse into one
        // character, and the font draws characters.
        var colours: [UInt32] = []
        var joined = ""
        for run in runs {
            let colour = (run.tint.map(Self.appColor) ?? text).pixel
            colours.append(contentsOf: repeatElement(colour, count: run.text.unicodeScalars.count))
            joined += run.text
        }
        var scalar = 0
        var glyph = Frame(width: font.advance, height: font.height)
        for character in joined {
            defer {
                scalar += character.unicodeScalars.count
                left += font.advance
            }
            if left >= layout.columns.upperBound { return }
            guard left + font.advance > layout.columns.lowerBound else { continue }
            glyph.fill(0xFF00_0000)
            font.draw(String(character), at: 0, 0, color: colours[min(scalar, colours.count - 1)], into: &glyph)
            copy(glyph, at: left, layout.textTop, clip: layout, into: &frame)
        }
    }

    /// The lit pixels of `piece` at (`x`, `y`), within the text area only.
    private func copy(_ piece: Frame, at x: Int, _ y: Int, clip layout: PixelAppLayout, into frame: inout Frame) {
        for row in 0..<piece.height where layout.rows.contains(y + row) {
            for column in 0..<piece.width where layout.columns.contains(x + column) && piece[column, row] != 0xFF00_0000 {
                frame[x + column, y + row] = piece[column, row]
            }
        }
    }

    /// Bars as columns with one dark column between them (none when they would not fit
    /// otherwise), left-aligned; a line as a polyline from the first column to the last. Both
    /// scaled from zero (or the least value, if below zero) to the most, as AWTRIX autoscales;
    /// a bar is at least one LED tall, so every value shows.
    private func drawChart(_ chart: NookApp.Chart, in layout: PixelAppLayout, color: UInt32, into frame: inout Frame) {
        let values = chart.values
        guard !values.isEmpty, !layout.rows.isEmpty, !layout.columns.isEmpty else { return }
        let low = min(0, values.min()!)
        let high = values.max()!
        let fraction = { (value: Double) -> Double in high > low ? (value - low) / (high - low) : (high > 0 ? 1 : 0) }
        let (columns, rows) = (layout.columns, layout.rows)
        switch chart.style {
        case .bar:
            let gap = 2 * values.count - 1 <= columns.count ? 1 : 0
            let barWidth = max(1, (columns.count - (values.count - 1) * gap) / values.count)
            for (index, value) in values.enumerated() {
                let height = max(1, Int((fraction(value) * Double(rows.count)).rounded()))
                let left = columns.lowerBound + index * (barWidth + gap)
                for x in left..<(left + barWidth) where columns.contains(x) {
                    for y in (rows.upperBound - height)..<rows.upperBound { frame[x, y] = color }
                }
            }
        case .line:
            let row = { (value: Double) in rows.upperBound - 1 - Int((fraction(value) * Double(rows.count - 1)).rounded()) }
            guard values.count > 1 else {
                for x in columns { frame[x, row(values[0])] = color }
                return
            }
            let step = Double(columns.count - 1) / Double(values.count - 1)
            let points = values.enumerated().map { (columns.lowerBound + Int((Double($0.offset) * step).rounded()), row($0.element)) }
            for (from, to) in zip(points, points.dropFirst()) { line(from: from, to: to, color: color, into: &frame) }
        }
    }

    /// Bresenham's line, both ends lit.
    private func line(from start: (Int, Int), to end: (Int, Int), color: UInt32, into frame: inout Frame) {
        var (x, y) = start
        let (dx, dy) = (abs(end.0 - x), -abs(end.1 - y))
        let (sx, sy) = (x < end.0 ? 1 : -1, y < end.1 ? 1 : -1)
        var error = dx + dy
        while true {
            if x >= 0, x < size.width, y >= 0, y < size.height { frame[x, y] = color }
            if x == end.0, y == end.1 { return }
            let doubled = 2 * error
            if doubled >= dy { error += dy; x += sx }
            if doubled <= dx { error += dx; y += sy }
        }
    }
}
