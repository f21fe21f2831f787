internal import CPangoCairo
import NookActivities

/// Pango font maps, each lent to one canvas at a time.
///
/// Pango's default font map is one per thread, since a map must not be used by two threads at
/// once. nookd draws on whichever of its executor's threads runs the screen, so each thread
/// loaded its own fonts (a fontconfig match and sort, in two threads pango starts for them) and
/// warmed its own caches, and the first cards a thread drew took twice as long. Here a map is
/// lent to one canvas at a time and comes back warm: the one given back last is lent first, and
/// a new one is made only while every map is lent (canvases drawing at once, as tests do).
final class FontMaps: Sendable {
    static let shared = FontMaps()

    // `Locked`, not a bare `Mutex`: ThreadSanitizer sees its hand-over, so a map lent to one
    // thread after another's use is ordered.
    private let idle = Locked<[FontMap]>([])

    func borrow() -> FontMap {
        idle.withLock { $0.popLast() } ?? FontMap()
    }

    /// `map` must no longer be used by the borrower: no context or layout made from it is left.
    func giveBack(_ map: FontMap) {
        idle.withLock { $0.append(map) }
    }
}

/// One pango cairo font map, kept for the life of the process (its fonts are the cache).
/// Sendable because ``FontMaps`` lends it to one canvas at a time.
final class FontMap: @unchecked Sendable {
    fileprivate let map: UnsafeMutablePointer<PangoFontMap>

    fileprivate init() {
        map = pango_cairo_font_map_new()
    }

    /// A pango context of this map for drawing with `cairo` (the caller unrefs it).
    func makeContext(for cairo: OpaquePointer) -> OpaquePointer {
        let context = pango_font_map_create_context(map)!
        pango_cairo_update_context(cairo, context)
        return context
    }
}
