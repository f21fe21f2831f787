import NookActivities
import NookDisplay

/// Where each part of a card landed, in logical pixels: what structure tests check.
public struct CardLayout: Hashable, Sendable {
    public struct Box: Hashable, Sendable {
        public var x: Int, y: Int, width: Int, height: Int
        init(_ rect: Rect) {
            x = Int(rect.x.rounded(.down))
            y = Int(rect.y.rounded(.down))
            width = Int(rect.width.rounded(.up))
            height = Int(rect.height.rounded(.up))
        }

        public init(x: Int, y: Int, width: Int, height: Int) {
            (self.x, self.y, self.width, self.height) = (x, y, width, height)
        }

        func grown(by pixels: Int) -> Box {
            Box(x: x - pixels, y: y - pixels, width: width + 2 * pixels, height: height + 2 * pixels)
        }

        /// `boxes` merged until none overlaps another: each of them inside one of the result.
        static func disjoint(_ boxes: [Box]) -> [Box] {
            var merged: [Box] = []
            for box in boxes where box.width > 0 && box.height > 0 {
                var grown = box
                while let index = merged.firstIndex(where: { $0.intersects(grown) }) {
                    grown = enclosing([grown, merged.remove(at: index)])!
                }
                merged.append(grown)
            }
            return merged
        }

        /// The smallest box holding all of `boxes`; nil for none.
        static func enclosing(_ boxes: [Box]) -> Box? {
            guard let first = boxes.first else { return nil }
            return boxes.dropFirst().reduce(first) { box, other in
                let left = Swift.min(box.x, other.x), top = Swift.min(box.y, other.y)
                let right = Swift.max(box.x + box.width, other.x + other.width), bottom = Swift.max(box.y + box.height, other.y + other.height)
                return Box(x: left, y: top, width: right - left, height: bottom - top)
            }
        }

        public func intersects(_ other: Box) -> Bool {
            x < other.x + other.width && other.x < x + width && y < other.y + other.height && other.y < y + height
        }
    }

    /// `wide` for strips with an aspect of 3:1 or more (horizontal layout), `stacked` otherwise.
    public enum Arrangement: String, Hashable, Sendable {
        case wide, stacked
    }

    public var arrangement: Arrangement
    public var card: Box
    public var icon: Box
    public var title: Box
    public var subtitle: Box?
    public var progress: Box?
    public var titleEllipsized: Bool
    public var subtitleEllipsized: Bool
    /// Characters no font could draw; zero when every script and emoji found a font.
    public var unknownGlyphs: Int
    /// Unicode scalars of title and subtitle handed to the text layout: bounded by the boxes,
    /// not by the activity's text (``LayoutText``).
    public var textScalars: Int
    /// Where title, subtitle and progress bar leave ink (the title's and subtitle's inked
    /// pixels, not their line boxes): what an update in place draws again.
    public var textInk: [Box] = []
    /// The icon's part of ``unknownGlyphs``.
    public var iconUnknownGlyphs = 0
    /// Where an app's drawing is painted; nil without one.
    public var figure: Box?
}

/// A card drawn once per activity: the whole logical frame, background included, ready to be
/// blitted into animation frames.
public struct RenderedCard: Sendable {
    public var frame: Frame
    public var layout: CardLayout
    /// Things the log should hear about (unknown icon, unreadable PNG).
    public var warnings: [String]
    /// The places drawn again by an update in place; nil: the whole frame was drawn.
    public var redrawn: [CardLayout.Box]?

    public init(frame: Frame, layout: CardLayout, warnings: [String], redrawn: [CardLayout.Box]? = nil) {
        (self.frame, self.layout, self.warnings, self.redrawn) = (frame, layout, warnings, redrawn)
    }
}

/// Draws activity cards (R1) in a ``Theme`` (R2) with icons (R3).
public struct CardRenderer: Sendable {
    public var theme: Theme

    public init(theme: Theme) {
        self.theme = theme
    }

    public static func arrangement(for size: PixelSize) -> CardLayout.Arrangement {
        size.width >= 3 * size.height ? .wide : .stacked
    }

    /// The PNG icon of an activity, read beforehand (``IconFile/load(path:followingSymlinks:)``).
    public typealias IconLoad = Result<IconImage, IconFileError>

    /// - Parameter icon: the activity's PNG icon, read beforehand; nil reads it here (the
    ///   screen always reads it first, away from its own executor).
    public func render(_ activity: NookActivity, size: PixelSize, icon: IconLoad? = nil) -> RenderedCard {
        draw(activity, icon: icon, onBackground: Frame(width: size.width, height: size.height, fill: theme.background.pixel))
    }

    /// Draws into `frame`, overwriting all of it: the screen hands back the frame of the card
    /// before, so a new card costs no fresh allocation.
    public func render(_ activity: NookActivity, into frame: consuming Frame, icon: IconLoad? = nil) -> RenderedCard {
        frame.fill(theme.background.pixel)
        return draw(activity, icon: icon, onBackground: frame)
    }

    /// The icon image an activity names, if it names a PNG file: read without blocking on
    /// FIFOs or devices (see ``IconFile``).
    public static func loadIcon(for activity: NookActivity) -> IconLoad? {
        guard let name = activity.systemImage, case .png(let path) = IconCatalog.resolve(name) else { return nil }
        do { return .success(try IconFile.load(path: path)) } catch { return .failure(error) }
    }

    /// The file an activity's PNG icon names, as it is now (``IconFile/stamp(path:)``); nil when
    /// it names no file, or nothing is there.
    public static func iconStamp(for activity: NookActivity) -> IconFile.Stamp? {
        guard let name = activity.systemImage, case .png(let path) = IconCatalog.resolve(name) else { return nil }
        return IconFile.stamp(path: path)
    }

    /// Draws `activity` into `frame`, which holds the card `previous` as this renderer drew it
    /// at this size (`layout`, the layout it returned): an update in place (U1). When the icon
    /// and the tint are the same and the title, subtitle and progress bar were and are where the
    /// card is one flat colour (inside its rounded edge, clear of the icon), only boxes round
    /// where they were or now are are drawn again (``RenderedCard/redrawn``): each filled with
    /// the card's colour, then the text and bar drawn into it. Nothing drawn there crosses a
    /// box's edge, so each comes out as the whole card's pixels: a clip cutting through an edge
    /// drawn with antialiasing (the card's rounded corner, a glyph) changes it by a shade or more
    /// on some cairo builds. Anything else draws the whole card.
    public func render(_ activity: NookActivity, into frame: consuming Frame, icon: IconLoad? = nil,
                       over previous: NookActivity, layout: CardLayout) -> RenderedCard {
        let size = frame.size
        guard activity.tint == previous.tint, activity.systemImage == previous.systemImage, activity.isBlocker == previous.isBlocker,
              layout.arrangement == Self.arrangement(for: size) else {
            return render(activity, into: frame, icon: icon)
        }
        var warnings: [String] = []
        let icon = icon ?? Self.loadIcon(for: activity)
        var redrawn: [CardLayout.Box]?
        let newLayout = Canvas.draw(into: &frame) { canvas in
            var plan = self.plan(activity, on: canvas, iconUnknownGlyphs: layout.iconUnknownGlyphs)
            // Two pixels round the ink: antialiasing reaches one past it. Each box is drawn under
            // a clip of its own (one box: a clip of several makes cairo composite through a mask,
            // which some builds round differently), and no ink reaches from one box into another.
            let boxes = CardLayout.Box.disjoint((layout.textInk + plan.layout.textInk).map { $0.grown(by: 2) })
            // Glyphs no font has (pango's hex boxes, a line break's arrow in a one-line layout) are
            // drawn outside the ink extents pango reports: such text is drawn with the whole card.
            let unknownText = layout.unknownGlyphs - layout.iconUnknownGlyphs + plan.layout.unknownGlyphs - plan.layout.iconUnknownGlyphs
            if unknownText == 0, !boxes.isEmpty, boxes.allSatisfy({ isPlain($0, card: plan.card, icon: plan.icon) }) {
                // The card's own colour, as the whole card left it at its left edge's middle.
                let cardPixel = canvas.pixel(x: Int(plan.card.x) + 1, y: Int(plan.card.midY))
                for box in boxes {
                    canvas.clip(to: box)
                    canvas.fillPixels(cardPixel, in: [box])
                    drawText(plan, activity, on: canvas, touching: box)
                }
                _ = iconFace(activity, image: icon, warnings: &warnings)
                redrawn = boxes
            } else {
                canvas.fillPixels(theme.background.pixel, in: [CardLayout.Box(x: 0, y: 0, width: size.width, height: size.height)])
                drawCardBackground(plan.card, on: canvas)
                plan.layout.unknownGlyphs -= plan.layout.iconUnknownGlyphs
                plan.layout.iconUnknownGlyphs = drawIcon(activity, image: icon, in: plan.icon, on: canvas, warnings: &warnings)
                plan.layout.unknownGlyphs += plan.layout.iconUnknownGlyphs
                drawText(plan, activity, on: canvas)
            }
            return plan.layout
        }
        return RenderedCard(frame: frame, layout: newLayout, warnings: warnings, redrawn: redrawn)
    }

    /// Whether the card is one flat colour all over `box`: inside its rounded rectangle by more
    /// than the pixel its edge's antialiasing takes (the rounded rectangle is convex: its four
    /// corners are enough), and clear of the icon's disc.
    private func isPlain(_ box: CardLayout.Box, card: Rect, icon: Rect) -> Bool {
        guard !box.intersects(CardLayout.Box(icon).grown(by: 2)) else { return false }
        let inset = 1.5
        let (left, top, right, bottom) = (card.x + inset, card.y + inset, card.maxX - inset, card.maxY - inset)
        let radius = theme.cornerRadius * min(card.width, card.height)
        func inside(_ x: Double, _ y: Double) -> Bool {
            guard x >= left, x <= right, y >= top, y <= bottom else { return false }
            let dx = x < left + radius ? left + radius - x : x > right - radius ? x - (right - radius) : 0
            let dy = y < top + radius ? top + radius - y : y > bottom - radius ? y - (bottom - radius) : 0
            return dx * dx + dy * dy <= radius * radius
        }
        let (x0, y0) = (Double(box.x), Double(box.y))
        let (x1, y1) = (x0 + Double(box.width), y0 + Double(box.height))
        return inside(x0, y0) && inside(x1, y0) && inside(x0, y1) && inside(x1, y1)
    }

    /// `frame` is filled with the background already, so cairo only draws the card on top.
    private func draw(_ activity: NookActivity, icon: IconLoad?, onBackground frame: consuming Frame) -> RenderedCard {
        var warnings: [String] = []
        let icon = icon ?? Self.loadIcon(for: activity)
        let layout = Canvas.draw(into: &frame) { canvas in
            var plan = self.plan(activity, on: canvas, iconUnknownGlyphs: nil)
            plan.layout.iconUnknownGlyphs = draw(plan, activity, icon: icon, on: canvas, warnings: &warnings)
            plan.layout.unknownGlyphs += plan.layout.iconUnknownGlyphs
            return plan.layout
        }
        return RenderedCard(frame: frame, layout: layout, warnings: warnings)
    }

    // MARK: Layouts

    /// Where everything of a card goes, its text laid out, before anything is drawn: what a
    /// redraw of a few places needs to know first.
    private struct Plan {
        var card: Rect
        var icon: Rect
        var title: (text: TextLayout, x: Double, y: Double)
        var subtitle: (text: TextLayout, x: Double, y: Double)?
        var progress: (value: Double, rect: Rect)?
        /// Where an app's drawing goes (AWTRIX's 32x8, scaled, aspect kept).
        var figure: Rect?
        var layout: CardLayout

        /// The plan, and its layout: the parts' boxes and where the text column leaves ink
        /// (each text's inked pixels where it is drawn, and the progress bar).
        init(_ arrangement: CardLayout.Arrangement, card: Rect, icon: Rect, title: (text: TextLayout, x: Double, y: Double), titleRect: Rect,
             subtitle: (text: TextLayout, x: Double, y: Double)?, subtitleRect: Rect?, progress: (value: Double, rect: Rect)?, figure: Rect?) {
            (self.card, self.icon, self.title, self.subtitle, self.progress, self.figure) = (card, icon, title, subtitle, progress, figure)
            var ink = [title.text.ink(atX: title.x, y: title.y)]
            if let subtitle { ink.append(subtitle.text.ink(atX: subtitle.x, y: subtitle.y)) }
            if let figure { ink.append(CardLayout.Box(figure)) }
            if let progress { ink.append(CardLayout.Box(progress.rect)) }
            let text = subtitle?.text
            layout = CardLayout(arrangement: arrangement, card: .init(card), icon: .init(icon), title: .init(titleRect),
                                subtitle: subtitleRect.map(CardLayout.Box.init), progress: progress.map { CardLayout.Box($0.rect) },
                                titleEllipsized: title.text.isEllipsized, subtitleEllipsized: text?.isEllipsized ?? false,
                                unknownGlyphs: title.text.unknownGlyphs + (text?.unknownGlyphs ?? 0),
                                textScalars: title.text.scalarCount + (text?.scalarCount ?? 0),
                                textInk: ink.filter { $0.width > 0 && $0.height > 0 })
            layout.figure = figure.map(CardLayout.Box.init)
        }
    }

    /// `iconUnknownGlyphs`: the icon's count when it is known (the card before had the same
    /// icon), counted in the layout; nil: it is counted when the icon is drawn.
    private func plan(_ activity: NookActivity, on canvas: Canvas, iconUnknownGlyphs: Int?) -> Plan {
        var plan = Self.arrangement(for: PixelSize(width: canvas.width, height: canvas.height)) == .wide
            ? planWide(activity, on: canvas) : planStacked(activity, on: canvas)
        if let iconUnknownGlyphs {
            plan.layout.iconUnknownGlyphs = iconUnknownGlyphs
            plan.layout.unknownGlyphs += iconUnknownGlyphs
        }
        return plan
    }

    /// Draws the planned card in the order a whole card is drawn; returns the icon's unknown glyphs.
    private func draw(_ plan: Plan, _ activity: NookActivity, icon: IconLoad?, on canvas: Canvas, warnings: inout [String]) -> Int {
        drawCardBackground(plan.card, on: canvas)
        let iconUnknown = drawIcon(activity, image: icon, in: plan.icon, on: canvas, warnings: &warnings)
        drawText(plan, activity, on: canvas)
        return iconUnknown
    }

    /// The title, subtitle and progress bar, drawn last; with `box`, only those whose ink (and
    /// the two pixels round it a redrawn box keeps) reaches into it: under a clip to the box the
    /// others would draw nothing, and shaping and filling them again costs as much as the rest.
    private func drawText(_ plan: Plan, _ activity: NookActivity, on canvas: Canvas, touching box: CardLayout.Box? = nil) {
        func reaches(_ ink: @autoclosure () -> CardLayout.Box) -> Bool { box.map { ink().grown(by: 2).intersects($0) } ?? true }
        if reaches(plan.title.text.ink(atX: plan.title.x, y: plan.title.y)) {
            plan.title.text.draw(x: plan.title.x, y: plan.title.y, color: theme.primaryText)
        }
        if let subtitle = plan.subtitle, reaches(subtitle.text.ink(atX: subtitle.x, y: subtitle.y)) {
            subtitle.text.draw(x: subtitle.x, y: subtitle.y, color: theme.secondaryText)
        }
        if let progress = plan.progress, reaches(CardLayout.Box(progress.rect)) {
            drawProgress(progress.value, in: progress.rect, tint: theme.color(for: activity.tint), on: canvas)
        }
        if let figure = plan.figure, let drawing = activity.app?.drawing, reaches(CardLayout.Box(figure)) {
            canvas.paint(drawing, in: figure, fontFamily: theme.fontFamily)
        }
    }

    private func planWide(_ activity: NookActivity, on canvas: Canvas) -> Plan {
        let (width, height) = (Double(canvas.width), Double(canvas.height))
        let margin = (0.05 * height).rounded()
        let card = Rect(x: margin, y: margin, width: width - 2 * margin, height: height - 2 * margin)
        let padding = 0.13 * card.height
        let disc = 0.46 * card.height
        let icon = Rect(x: card.x + padding, y: card.midY - disc / 2, width: disc, height: disc)

        let x = icon.maxX + 0.8 * padding
        let textWidth = card.maxX - padding - x
        let title = canvas.layoutText(activity.title, family: theme.fontFamily, weight: .bold,
                                      pixelSize: 0.15 * height * theme.titleScale, maxWidth: textWidth, maxLines: 1,
                                      colors: titleColors(activity))
        let subtitle = activity.subtitle.map {
            canvas.layoutText($0, family: theme.fontFamily, weight: .regular,
                              pixelSize: 0.095 * height * theme.subtitleScale, maxWidth: textWidth, maxLines: 1)
        }
        // Title, subtitle and progress bar as one block, vertically centred in the card.
        let gap = 0.035 * height
        let barHeight = max(3, 0.035 * height)
        let titleSize = title.size
        let subtitleSize = subtitle?.size
        var blockHeight = titleSize.height
        if let subtitleSize { blockHeight += 0.2 * gap + subtitleSize.height }
        if activity.progress != nil { blockHeight += gap + barHeight }
        // An app's drawing under the title, as wide as the text column allows at 32x8's aspect.
        let figureHeight = activity.app?.drawing == nil ? 0 : min(textWidth / 4, card.height - 2 * padding - blockHeight - gap)
        if figureHeight > 0 { blockHeight += gap + figureHeight }
        var y = card.midY - blockHeight / 2

        let titleRect = Rect(x: x + title.offsetX, y: y, width: titleSize.width, height: titleSize.height)
        let titleAt = (title, x, y)
        y = titleRect.maxY
        var subtitleRect: Rect?
        var subtitleAt: (text: TextLayout, x: Double, y: Double)?
        if let subtitle, let subtitleSize {
            y += 0.2 * gap
            subtitleRect = Rect(x: x + subtitle.offsetX, y: y, width: subtitleSize.width, height: subtitleSize.height)
            subtitleAt = (subtitle, x, y)
            y += subtitleSize.height
        }
        var figure: Rect?
        if figureHeight > 0 {
            figure = Rect(x: x, y: y + gap, width: figureHeight * 4, height: figureHeight)
            y += gap + figureHeight
        }
        var progressAt: (value: Double, rect: Rect)?
        if let progress = activity.progress {
            y += gap
            progressAt = (progress, Rect(x: x, y: y, width: textWidth, height: barHeight))
        }
        return Plan(.wide, card: card, icon: icon, title: titleAt, titleRect: titleRect, subtitle: subtitleAt,
                    subtitleRect: subtitleRect, progress: progressAt, figure: figure)
    }

    private func planStacked(_ activity: NookActivity, on canvas: Canvas) -> Plan {
        let (width, height) = (Double(canvas.width), Double(canvas.height))
        let unit = min(height, width / 1.6)
        let margin = (0.05 * unit).rounded()
        let card = Rect(x: margin, y: margin, width: width - 2 * margin, height: height - 2 * margin)
        let padding = 0.09 * unit
        let disc = 0.27 * unit
        let icon = Rect(x: card.x + padding, y: card.y + padding, width: disc, height: disc)

        // Title beside the icon; subtitle and progress under both.
        let titleX = icon.maxX + 0.6 * padding
        let titleWidth = card.maxX - padding - titleX
        let title = canvas.layoutText(activity.title, family: theme.fontFamily, weight: .bold,
                                      pixelSize: 0.13 * unit * theme.titleScale, maxWidth: titleWidth, maxLines: 2,
                                      colors: titleColors(activity))
        let titleSize = title.size
        let titleRect = Rect(x: titleX + title.offsetX, y: icon.midY - titleSize.height / 2, width: titleSize.width, height: titleSize.height)
        let titleAt = (title, titleX, titleRect.y)

        let textX = card.x + padding
        let textWidth = card.width - 2 * padding
        var y = max(icon.maxY, titleRect.maxY) + 0.06 * unit
        var subtitleRect: Rect?
        var subtitleAt: (text: TextLayout, x: Double, y: Double)?
        if let text = activity.subtitle {
            let subtitle = canvas.layoutText(text, family: theme.fontFamily, weight: .regular,
                                             pixelSize: 0.1 * unit * theme.subtitleScale, maxWidth: textWidth, maxLines: 2)
            let size = subtitle.size
            let rect = Rect(x: textX + subtitle.offsetX, y: y, width: size.width, height: size.height)
            subtitleAt = (subtitle, textX, rect.y)
            subtitleRect = rect
            y = rect.maxY
        }
        var progressAt: (value: Double, rect: Rect)?
        let barHeight = max(3, 0.04 * unit)
        if let progress = activity.progress {
            progressAt = (progress, Rect(x: textX, y: max(y + 0.06 * unit, card.maxY - padding - barHeight), width: textWidth, height: barHeight))
        }
        // An app's drawing in the room left above the bar, at 32x8's aspect, centred.
        var figure: Rect?
        let room = card.maxY - padding - (progressAt == nil ? 0 : barHeight + 0.06 * unit) - (y + 0.06 * unit)
        if activity.app?.drawing != nil, room > 0 {
            let height = min(textWidth / 4, room)
            figure = Rect(x: textX + (textWidth - 4 * height) / 2, y: y + 0.06 * unit, width: 4 * height, height: height)
        }
        return Plan(.stacked, card: card, icon: icon, title: titleAt, titleRect: titleRect, subtitle: subtitleAt,
                    subtitleRect: subtitleRect, progress: progressAt, figure: figure)
    }

    // MARK: Parts

    /// An app's fragments (A5) as the title's colours, one for each scalar: each fragment in its
    /// tint, one without a tint in the title's own colour. Nil for every other card, and for an
    /// app whose fragments do not spell its title (then the title is drawn as it is).
    func titleColors(_ activity: NookActivity) -> [RGB?]? {
        guard let face = activity.app, !face.fragments.isEmpty, !face.stale,
              face.fragments.map(\.text).joined().unicodeScalars.elementsEqual(activity.title.unicodeScalars) else { return nil }
        return face.fragments.flatMap { fragment in
            repeatElement(fragment.tint.map(theme.color(for:)), count: fragment.text.unicodeScalars.count)
        }
    }

    private func drawCardBackground(_ card: Rect, on canvas: Canvas) {
        canvas.fillRoundedRect(card, radius: theme.cornerRadius * min(card.width, card.height), color: theme.cardBackground)
    }

    /// The tint disc with the icon on it, in the colour that contrasts with the tint.
    /// Returns how many icon characters no font could draw (zero for every catalogued name).
    @discardableResult
    private func drawIcon(_ activity: NookActivity, image: IconLoad?, in rect: Rect, on canvas: Canvas, warnings: inout [String]) -> Int {
        let tint = theme.color(for: activity.tint)
        canvas.fillCircle(centerX: rect.midX, centerY: rect.midY, radius: rect.width / 2, color: tint)
        switch iconFace(activity, image: image, warnings: &warnings) {
        case .image(let image):
            let inset = rect.width * 0.2
            canvas.paint(image, in: Rect(x: rect.x + inset, y: rect.y + inset, width: rect.width - 2 * inset, height: rect.height - 2 * inset))
            return 0
        case .glyph(let glyph):
            let layout = canvas.layoutText(String(Character(glyph)), family: theme.iconFontFamily, weight: .regular,
                                           pixelSize: rect.width * 0.5, maxWidth: rect.width, maxLines: 1)
            let size = layout.size
            layout.draw(x: rect.midX - size.width / 2, y: rect.midY - size.height / 2, color: Theme.contrastingText(on: tint))
            return layout.unknownGlyphs
        }
    }

    private enum IconFace {
        case image(IconImage)
        case glyph(Unicode.Scalar)
    }

    /// What the disc shows: the PNG the activity names, read, or a glyph; what went wrong on the
    /// way goes to `warnings` (a card redrawn in part says it as a whole one would).
    private func iconFace(_ activity: NookActivity, image: IconLoad?, warnings: inout [String]) -> IconFace {
        switch activity.systemImage.map(IconCatalog.resolve) {
        case nil:
            return .glyph(activity.isBlocker ? IconCatalog.glyphs["exclamationmark.circle"]! : IconCatalog.glyphs["bell"]!)
        case .glyph(let found):
            return .glyph(found)
        case .fallback(let warning):
            warnings.append(warning)
        case .png(let path):
            switch image {
            case .success(let image)?:
                return .image(image)
            case .failure(let error)?:
                warnings.append("icon \(error); drawing the generic glyph")
            case nil:
                warnings.append("icon \(path): not read; drawing the generic glyph")
            }
        }
        return .glyph(IconCatalog.generic)
    }

    private func drawProgress(_ progress: Double, in rect: Rect, tint: RGB, on canvas: Canvas) {
        canvas.fillRoundedRect(rect, radius: rect.height / 2, color: theme.secondaryText, alpha: 0.3)
        let filled = Rect(x: rect.x, y: rect.y, width: max(rect.height, rect.width * min(1, max(0, progress))), height: rect.height)
        if progress > 0 { canvas.fillRoundedRect(filled, radius: rect.height / 2, color: tint) }
    }
}
