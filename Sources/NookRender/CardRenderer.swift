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
}

/// A card drawn once per activity: the whole logical frame, background included, ready to be
/// blitted into animation frames.
public struct RenderedCard: Sendable {
    public var frame: Frame
    public var layout: CardLayout
    /// Things the log should hear about (unknown icon, unreadable PNG).
    public var warnings: [String]
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

    /// `frame` is filled with the background already, so cairo only draws the card on top.
    private func draw(_ activity: NookActivity, icon: IconLoad?, onBackground frame: consuming Frame) -> RenderedCard {
        let size = frame.size
        var warnings: [String] = []
        let icon = icon ?? Self.loadIcon(for: activity)
        let layout = Canvas.draw(into: &frame) { canvas in
            Self.arrangement(for: size) == .wide
                ? drawWide(activity, icon: icon, on: canvas, warnings: &warnings)
                : drawStacked(activity, icon: icon, on: canvas, warnings: &warnings)
        }
        return RenderedCard(frame: frame, layout: layout, warnings: warnings)
    }

    // MARK: Layouts

    private func drawWide(_ activity: NookActivity, icon image: IconLoad?, on canvas: Canvas, warnings: inout [String]) -> CardLayout {
        let (width, height) = (Double(canvas.width), Double(canvas.height))
        let margin = (0.05 * height).rounded()
        let card = Rect(x: margin, y: margin, width: width - 2 * margin, height: height - 2 * margin)
        drawCardBackground(card, on: canvas)
        let padding = 0.13 * card.height
        let disc = 0.46 * card.height
        let icon = Rect(x: card.x + padding, y: card.midY - disc / 2, width: disc, height: disc)
        let iconUnknown = drawIcon(activity, image: image, in: icon, on: canvas, warnings: &warnings)

        let textX = icon.maxX + 0.8 * padding
        let textWidth = card.maxX - padding - textX
        let title = canvas.layoutText(activity.title, family: theme.fontFamily, weight: .bold,
                                      pixelSize: 0.15 * height * theme.titleScale, maxWidth: textWidth, maxLines: 1,
                                      colors: titleColors(activity))
        let subtitle = activity.subtitle.map {
            canvas.layoutText($0, family: theme.fontFamily, weight: .regular,
                              pixelSize: 0.095 * height * theme.subtitleScale, maxWidth: textWidth, maxLines: 1)
        }
        return stackText(title: title, subtitle: subtitle, progress: activity.progress, tint: theme.color(for: activity.tint),
                         x: textX, width: textWidth, centeredIn: card, gap: 0.035 * height,
                         barHeight: max(3, 0.035 * height), on: canvas, arrangement: .wide, card: card, icon: icon,
                         iconUnknownGlyphs: iconUnknown)
    }

    private func drawStacked(_ activity: NookActivity, icon image: IconLoad?, on canvas: Canvas, warnings: inout [String]) -> CardLayout {
        let (width, height) = (Double(canvas.width), Double(canvas.height))
        let unit = min(height, width / 1.6)
        let margin = (0.05 * unit).rounded()
        let card = Rect(x: margin, y: margin, width: width - 2 * margin, height: height - 2 * margin)
        drawCardBackground(card, on: canvas)
        let padding = 0.09 * unit
        let disc = 0.27 * unit
        let icon = Rect(x: card.x + padding, y: card.y + padding, width: disc, height: disc)
        let iconUnknown = drawIcon(activity, image: image, in: icon, on: canvas, warnings: &warnings)

        // Title beside the icon; subtitle and progress under both.
        let titleX = icon.maxX + 0.6 * padding
        let titleWidth = card.maxX - padding - titleX
        let title = canvas.layoutText(activity.title, family: theme.fontFamily, weight: .bold,
                                      pixelSize: 0.13 * unit * theme.titleScale, maxWidth: titleWidth, maxLines: 2,
                                      colors: titleColors(activity))
        let titleSize = title.size
        let titleRect = Rect(x: titleX + title.offsetX, y: icon.midY - titleSize.height / 2, width: titleSize.width, height: titleSize.height)
        title.draw(x: titleX, y: titleRect.y, color: theme.primaryText)

        let textX = card.x + padding
        let textWidth = card.width - 2 * padding
        var y = max(icon.maxY, titleRect.maxY) + 0.06 * unit
        var subtitleRect: Rect?
        var subtitleEllipsized = false
        var unknown = title.unknownGlyphs + iconUnknown
        var textScalars = title.scalarCount
        if let text = activity.subtitle {
            let subtitle = canvas.layoutText(text, family: theme.fontFamily, weight: .regular,
                                             pixelSize: 0.1 * unit * theme.subtitleScale, maxWidth: textWidth, maxLines: 2)
            let size = subtitle.size
            let rect = Rect(x: textX + subtitle.offsetX, y: y, width: size.width, height: size.height)
            subtitle.draw(x: textX, y: rect.y, color: theme.secondaryText)
            subtitleRect = rect
            subtitleEllipsized = subtitle.isEllipsized
            unknown += subtitle.unknownGlyphs
            textScalars += subtitle.scalarCount
            y = rect.maxY
        }
        var progressRect: Rect?
        if let progress = activity.progress {
            let barHeight = max(3, 0.04 * unit)
            let rect = Rect(x: textX, y: max(y + 0.06 * unit, card.maxY - padding - barHeight), width: textWidth, height: barHeight)
            drawProgress(progress, in: rect, tint: theme.color(for: activity.tint), on: canvas)
            progressRect = rect
        }
        return CardLayout(arrangement: .stacked, card: .init(card), icon: .init(icon), title: .init(titleRect),
                          subtitle: subtitleRect.map(CardLayout.Box.init), progress: progressRect.map(CardLayout.Box.init),
                          titleEllipsized: title.isEllipsized, subtitleEllipsized: subtitleEllipsized, unknownGlyphs: unknown,
                          textScalars: textScalars)
    }

    /// Title, subtitle and progress bar as one block, vertically centred in `card`.
    private func stackText(title: TextLayout, subtitle: TextLayout?, progress: Double?, tint: RGB,
                           x: Double, width: Double, centeredIn card: Rect, gap: Double, barHeight: Double,
                           on canvas: Canvas, arrangement: CardLayout.Arrangement, card cardRect: Rect, icon: Rect,
                           iconUnknownGlyphs: Int) -> CardLayout {
        let titleSize = title.size
        let subtitleSize = subtitle?.size
        var blockHeight = titleSize.height
        if let subtitleSize { blockHeight += 0.2 * gap + subtitleSize.height }
        if progress != nil { blockHeight += gap + barHeight }
        var y = card.midY - blockHeight / 2

        let titleRect = Rect(x: x + title.offsetX, y: y, width: titleSize.width, height: titleSize.height)
        title.draw(x: x, y: y, color: theme.primaryText)
        y = titleRect.maxY
        var subtitleRect: Rect?
        if let subtitle, let subtitleSize {
            y += 0.2 * gap
            subtitleRect = Rect(x: x + subtitle.offsetX, y: y, width: subtitleSize.width, height: subtitleSize.height)
            subtitle.draw(x: x, y: y, color: theme.secondaryText)
            y += subtitleSize.height
        }
        var progressRect: Rect?
        if let progress {
            y += gap
            let rect = Rect(x: x, y: y, width: width, height: barHeight)
            drawProgress(progress, in: rect, tint: tint, on: canvas)
            progressRect = rect
        }
        return CardLayout(arrangement: arrangement, card: .init(cardRect), icon: .init(icon), title: .init(titleRect),
                          subtitle: subtitleRect.map(CardLayout.Box.init), progress: progressRect.map(CardLayout.Box.init),
                          titleEllipsized: title.isEllipsized, subtitleEllipsized: subtitle?.isEllipsized ?? false,
                          unknownGlyphs: title.unknownGlyphs + (subtitle?.unknownGlyphs ?? 0) + iconUnknownGlyphs,
                          textScalars: title.scalarCount + (subtitle?.scalarCount ?? 0))
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
        var glyph = IconCatalog.generic
        switch activity.systemImage.map(IconCatalog.resolve) {
        case nil:
            glyph = activity.isBlocker ? IconCatalog.glyphs["exclamationmark.circle"]! : IconCatalog.glyphs["bell"]!
        case .glyph(let found):
            glyph = found
        case .fallback(let warning):
            warnings.append(warning)
        case .png(let path):
            switch image {
            case .success(let image)?:
                let inset = rect.width * 0.2
                canvas.paint(image, in: Rect(x: rect.x + inset, y: rect.y + inset, width: rect.width - 2 * inset, height: rect.height - 2 * inset))
                return 0
            case .failure(let error)?:
                warnings.append("icon \(error); drawing the generic glyph")
            case nil:
                warnings.append("icon \(path): not read; drawing the generic glyph")
            }
        }
        let layout = canvas.layoutText(String(Character(glyph)), family: theme.iconFontFamily, weight: .regular,
                                       pixelSize: rect.width * 0.5, maxWidth: rect.width, maxLines: 1)
        let size = layout.size
        layout.draw(x: rect.midX - size.width / 2, y: rect.midY - size.height / 2, color: Theme.contrastingText(on: tint))
        return layout.unknownGlyphs
    }

    private func drawProgress(_ progress: Double, in rect: Rect, tint: RGB, on canvas: Canvas) {
        canvas.fillRoundedRect(rect, radius: rect.height / 2, color: theme.secondaryText, alpha: 0.3)
        let filled = Rect(x: rect.x, y: rect.y, width: max(rect.height, rect.width * min(1, max(0, progress))), height: rect.height)
        if progress > 0 { canvas.fillRoundedRect(filled, radius: rect.height / 2, color: tint) }
    }
}
