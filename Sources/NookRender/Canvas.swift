internal import CPangoCairo
import NookActivities
import NookDisplay

/// A cairo context drawing straight into a ``Frame``'s pixels (cairo `RGB24` is XRGB8888).
///
/// Owns its cairo context (the surface belongs to ``withImageSurface(over:_:)``) and releases
/// both on every exit path; no cairo or pango type leaves this module.
final class Canvas {
    let width: Int
    let height: Int
    let context: OpaquePointer
    private let surface: OpaquePointer
    /// The font map lent for this canvas's text and the pango context made from it, once text
    /// is laid out; both go back when the drawing ends (no layout outlives `draw`'s body).
    private var fonts: (map: FontMap, context: OpaquePointer)?

    /// Draws into `frame` for the duration of `body`.
    static func draw<Result>(into frame: inout Frame, _ body: (Canvas) throws -> Result) rethrows -> Result {
        let (width, height) = (frame.width, frame.height)
        return try withImageSurface(over: &frame) { surface in
            let canvas = Canvas(surface: surface, width: width, height: height)
            defer { canvas.finish() }
            return try body(canvas)
        }
    }

    private func finish() {
        if let fonts {
            g_object_unref(UnsafeMutableRawPointer(fonts.context))
            FontMaps.shared.giveBack(fonts.map)
            self.fonts = nil
        }
        cairo_destroy(context)
    }

    /// The pango context text is laid out in, matching the cairo context as it is now.
    fileprivate var pangoContext: OpaquePointer {
        if let fonts {
            pango_cairo_update_context(context, fonts.context)
            return fonts.context
        }
        let map = FontMaps.shared.borrow()
        let made = (map: map, context: map.makeContext(for: context))
        fonts = made
        return made.context
    }

    private init(surface: OpaquePointer, width: Int, height: Int) {
        self.width = width
        self.height = height
        self.surface = surface
        context = cairo_create(surface)
        cairo_set_antialias(context, CAIRO_ANTIALIAS_GOOD)
    }

    // MARK: Shapes

    /// From now on draws only inside `box` (whole pixels), whatever clip there was before.
    func clip(to box: CardLayout.Box) {
        cairo_reset_clip(context)
        cairo_new_path(context)
        cairo_rectangle(context, Double(box.x), Double(box.y), Double(box.width), Double(box.height))
        cairo_clip(context)
    }

    /// The pixel at (`x`, `y`) as drawn so far.
    func pixel(x: Int, y: Int) -> UInt32 {
        cairo_surface_flush(surface)
        let pixels = UnsafeMutableRawPointer(cairo_image_surface_get_data(surface)!).assumingMemoryBound(to: UInt32.self)
        return pixels[y * Int(cairo_image_surface_get_stride(surface)) / 4 + x]
    }

    /// Sets every pixel of `boxes` (inside the frame) to `pixel`, as ``Frame/fill(_:)`` sets a
    /// whole frame's.
    func fillPixels(_ pixel: UInt32, in boxes: [CardLayout.Box]) {
        cairo_surface_flush(surface)
        let pixels = UnsafeMutableRawPointer(cairo_image_surface_get_data(surface)!).assumingMemoryBound(to: UInt32.self)
        let stride = Int(cairo_image_surface_get_stride(surface)) / 4
        for box in boxes {
            let (left, right) = (max(0, box.x), min(width, box.x + box.width))
            let (top, bottom) = (max(0, box.y), min(height, box.y + box.height))
            guard left < right, top < bottom else { continue }
            for row in top..<bottom {
                UnsafeMutableBufferPointer(start: pixels + row * stride + left, count: right - left).update(repeating: pixel)
            }
        }
        cairo_surface_mark_dirty(surface)
    }

    func setColor(_ color: RGB, alpha: Double = 1) {
        cairo_set_source_rgba(context, Double(color.red) / 255, Double(color.green) / 255, Double(color.blue) / 255, alpha)
    }

    func fillRoundedRect(_ rect: Rect, radius: Double, color: RGB, alpha: Double = 1) {
        let r = max(0, min(radius, min(rect.width, rect.height) / 2))
        cairo_new_sub_path(context)
        cairo_arc(context, rect.maxX - r, rect.y + r, r, -Double.pi / 2, 0)
        cairo_arc(context, rect.maxX - r, rect.maxY - r, r, 0, Double.pi / 2)
        cairo_arc(context, rect.x + r, rect.maxY - r, r, Double.pi / 2, Double.pi)
        cairo_arc(context, rect.x + r, rect.y + r, r, Double.pi, 3 * Double.pi / 2)
        cairo_close_path(context)
        setColor(color, alpha: alpha)
        cairo_fill(context)
    }

    func fillCircle(centerX: Double, centerY: Double, radius: Double, color: RGB) {
        cairo_new_sub_path(context)
        cairo_arc(context, centerX, centerY, radius, 0, 2 * Double.pi)
        setColor(color)
        cairo_fill(context)
    }

    // MARK: Text

    /// Lays out `text` in one font, `maxWidth` wide, at most `maxLines` lines, ellipsised at
    /// the end when it does not fit. Pango is handed only what the box can show
    /// (``LayoutText/bounded(_:characters:)``), so no text holds the display loop longer than
    /// a short one does; `bounded: false` hands it everything (tests compare the two).
    ///
    /// `colors`, one for each Unicode scalar of `text`, colour it in runs (an app's fragments,
    /// A5); nil ones are drawn in the colour ``TextLayout/draw(x:y:color:)`` is given.
    func layoutText(_ text: String, family: String, weight: FontWeight, pixelSize: Double,
                    maxWidth: Double, maxLines: Int, bounded: Bool = true, colors: [RGB?]? = nil) -> TextLayout {
        let shown: (text: String, ellipsized: Bool) = bounded
            ? LayoutText.bounded(text, characters: LayoutText.characterBound(width: maxWidth, lines: maxLines, pixelSize: pixelSize),
                                 joiningLines: maxLines > 1)
            : (text, false)
        let layout = TextLayout(canvas: self, text: shown.text, cut: shown.ellipsized, family: family, weight: weight, pixelSize: pixelSize,
                                maxWidth: maxWidth, maxLines: maxLines)
        if let colors { layout.color(shown.text, byCharacter: LayoutText.characterColors(text, scalarColors: colors)) }
        return layout
    }
}

/// What of a text a layout is handed. Shaping and ellipsising cost grows with the text, not
/// with what shows: a title of one letter and 31,000 combining marks took seconds. A box
/// `width` wide shows at most `width / narrowest advance` characters a line, so a prefix of
/// that many (plus one, to make pango ellipsise) looks the same as the whole text; and no
/// character keeps more than ``NookTextLimit/scalarsPerCharacter`` scalars (what validation
/// allows: a stack that tall is already past the line above).
enum LayoutText {
    /// The narrowest advance of a character that takes room on a line, in ems: `i`, `l`, `.`,
    /// `'` and the space are a quarter of an em or more in DejaVu Sans and Noto Sans, bold or
    /// not; a fifth leaves room for narrower fonts. Zero-width characters may be cut off
    /// sooner than pango would, which changes nothing on the glass but the "…".
    static let narrowestAdvance = 0.2

    /// The most characters a box of `lines` lines of `width` pixels can show at `pixelSize`.
    static func characterBound(width: Double, lines: Int, pixelSize: Double) -> Int {
        let perLine = max(1, width) / (narrowestAdvance * max(1, pixelSize))
        return Int(min(1e6, (perLine * Double(max(1, lines))).rounded(.up))) + 1
    }

    /// `text` with at most `characters` characters, each of at most
    /// ``NookTextLimit/scalarsPerCharacter`` scalars, ending in "…" if characters were cut off
    /// (`ellipsized`). `joiningLines`: line breaks become spaces, for a box of several lines:
    /// pango limits the lines of each paragraph, not of the layout, so a subtitle of 500 line
    /// breaks would otherwise be 500 lines tall, far past the card.
    static func bounded(_ text: String, characters: Int, joiningLines: Bool = false) -> (text: String, ellipsized: Bool) {
        let scalarLimit = NookTextLimit.scalarsPerCharacter
        // Short text has neither too many characters nor a character of too many scalars.
        if text.utf8.count <= min(characters, scalarLimit), !joiningLines || !text.contains(where: \.isNewline) { return (text, false) }
        var result = ""
        var count = 0
        var trimmed = false
        for character in text {
            if count == characters {
                return (result + "…", true)
            }
            let scalars = character.unicodeScalars
            if joiningLines, character.isNewline {
                result.append(" ")
                trimmed = true
            } else if scalars.count > scalarLimit {
                result.unicodeScalars.append(contentsOf: scalars.prefix(scalarLimit))
                trimmed = true
            } else {
                result.append(character)
            }
            count += 1
        }
        return (trimmed ? result : text, false)
    }
}

extension LayoutText {
    /// The colour of each character of `text`: its first scalar's. `bounded` keeps one
    /// character for each it keeps (a line break becomes a space, a too-tall stack is cut
    /// short), so the shown text's n-th character is the text's n-th.
    static func characterColors(_ text: String, scalarColors: [RGB?]) -> [RGB?] {
        var scalar = 0
        return text.map { character in
            defer { scalar += character.unicodeScalars.count }
            return scalar < scalarColors.count ? scalarColors[scalar] : nil
        }
    }
}

enum FontWeight {
    case regular, bold
}

/// A pango layout of one piece of text, measured before it is drawn.
final class TextLayout {
    private let canvas: Canvas
    private let layout: OpaquePointer

    /// Characters were left out before layout (``LayoutText``).
    private let cut: Bool
    /// Unicode scalars handed to pango.
    let scalarCount: Int

    fileprivate init(canvas: Canvas, text: String, cut: Bool, family: String, weight: FontWeight, pixelSize: Double,
                     maxWidth: Double, maxLines: Int) {
        self.canvas = canvas
        self.cut = cut
        scalarCount = text.unicodeScalars.count
        layout = pango_layout_new(canvas.pangoContext)
        let font = pango_font_description_new()
        pango_font_description_set_family(font, family)
        pango_font_description_set_weight(font, weight == .bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL)
        pango_font_description_set_absolute_size(font, pixelSize * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, font)
        pango_font_description_free(font)
        pango_layout_set_width(layout, Int32(max(1, maxWidth) * Double(PANGO_SCALE)))
        pango_layout_set_height(layout, Int32(-max(1, maxLines)))
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
        pango_layout_set_single_paragraph_mode(layout, maxLines == 1 ? 1 : 0)
        pango_layout_set_text(layout, text, -1)
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(layout)) }

    /// Colours `shown` (the text this layout holds) a character at a time as pango foreground
    /// attributes, each run of one colour one attribute; the "…" of a cut text takes the
    /// colour of the character before it.
    fileprivate func color(_ shown: String, byCharacter colors: [RGB?]) {
        guard !colors.isEmpty else { return }
        let list = pango_attr_list_new()!
        defer { pango_attr_list_unref(list) }
        var byte = 0
        var runStart = 0
        var runColor: RGB?
        func flush() {
            guard let runColor, byte > runStart else { return }
            let attribute = pango_attr_foreground_new(UInt16(runColor.red) * 257, UInt16(runColor.green) * 257, UInt16(runColor.blue) * 257)!
            attribute.pointee.start_index = UInt32(runStart)
            attribute.pointee.end_index = UInt32(byte)
            pango_attr_list_insert(list, attribute)
        }
        for (index, character) in shown.enumerated() {
            let color = colors[min(index, colors.count - 1)]
            if color != runColor {
                flush()
                (runStart, runColor) = (byte, color)
            }
            byte += character.utf8.count
        }
        flush()
        pango_layout_set_attributes(layout, list)
    }

    /// The ink-independent logical size in pixels.
    var size: (width: Double, height: Double) {
        var width: Int32 = 0, height: Int32 = 0
        pango_layout_get_pixel_size(layout, &width, &height)
        return (Double(width), Double(height))
    }

    /// Where the text starts within its width: 0 for left-to-right, more for right-to-left
    /// paragraphs, which pango aligns to the right.
    var offsetX: Double {
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, &logical)
        return Double(logical.x)
    }

    /// The pixels the text inks when drawn at (`x`, `y`): pango's ink extents, whole pixels.
    func ink(atX x: Double, y: Double) -> CardLayout.Box {
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, &logical)
        let left = Int((x + Double(ink.x)).rounded(.down)), top = Int((y + Double(ink.y)).rounded(.down))
        return CardLayout.Box(x: left, y: top, width: Int(ink.width) + 1, height: Int(ink.height) + 1)
    }

    var isEllipsized: Bool { cut || pango_layout_is_ellipsized(layout) != 0 }

    /// Characters no installed font could draw (they would show as boxes).
    var unknownGlyphs: Int { Int(pango_layout_get_unknown_glyphs_count(layout)) }

    func draw(x: Double, y: Double, color: RGB) {
        canvas.setColor(color)
        cairo_move_to(canvas.context, x, y)
        pango_cairo_show_layout(canvas.context, layout)
    }
}

/// A rectangle in logical pixels.
struct Rect: Hashable {
    var x: Double
    var y: Double
    var width: Double
    var height: Double
    var maxX: Double { x + width }
    var maxY: Double { y + height }
    var midY: Double { y + height / 2 }
    var midX: Double { x + width / 2 }
}

/// A drawing or image failure, naming the cairo/pango call.
public struct RenderError: Error, Hashable, Sendable, CustomStringConvertible {
    public var operation: String
    public var detail: String
    public var description: String { "'\(operation)' failed: \(detail)" }
}

/// Runs `body` with a cairo `RGB24` image surface drawing straight into `frame`'s pixels, and
/// flushes, finishes and destroys it afterwards: cairo must not touch the storage later.
func withImageSurface<Result>(over frame: inout Frame, _ body: (OpaquePointer) throws -> Result) rethrows -> Result {
    let (width, height) = (frame.width, frame.height)
    return try frame.pixels.withUnsafeMutableBytes { bytes in
        let surface = cairo_image_surface_create_for_data(
            bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
            Int32(width), Int32(height), Int32(width * 4))!
        defer {
            cairo_surface_flush(surface)
            cairo_surface_finish(surface)
            cairo_surface_destroy(surface)
        }
        return try body(surface)
    }
}

/// A cairo image surface read from a PNG file; the caller destroys it. Throws naming the file
/// and cairo's reason.
func loadPNGSurface(_ path: String) throws(RenderError) -> OpaquePointer {
    let image = cairo_image_surface_create_from_png(path)!
    let status = cairo_surface_status(image)
    guard status == CAIRO_STATUS_SUCCESS else {
        cairo_surface_destroy(image)
        throw RenderError(operation: "cairo_image_surface_create_from_png", detail: "\(path): \(String(cString: cairo_status_to_string(status)))")
    }
    return image
}
