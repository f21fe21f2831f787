/// What a card made from an app (A1) carries beyond a card's own fields, for the renderers
/// that draw an app its own way (A5): the LED matrix lays it out as AWTRIX does (icon, text
/// in colours, progress line, chart in place of the text), the card renderer colours each
/// fragment. The card's title stays the plain text, so every other reader of a card (the
/// history, a strip, the log) sees what it always saw.
public struct NookAppFace: Hashable, Sendable {
    /// The text in coloured runs; a run without a tint is drawn as plain text would be.
    /// Empty for an app of plain text.
    public var fragments: [NookApp.Fragment]
    public var chart: NookApp.Chart?
    /// AWTRIX's drawing, over the app (A1).
    public var drawing: NookDrawing?
    /// The app has no words: the card's title is its name, for readers that need words (a
    /// panel, a strip, the log); an LED matrix draws no text, as AWTRIX draws none.
    public var wordless: Bool
    /// Its lifetime ran out and it is kept dimmed (A1 `stale`): drawn grey, fragments too.
    public var stale: Bool

    public init(fragments: [NookApp.Fragment] = [], chart: NookApp.Chart? = nil, drawing: NookDrawing? = nil, wordless: Bool = false,
                stale: Bool = false) {
        self.fragments = fragments
        self.chart = chart
        self.drawing = drawing
        self.wordless = wordless
        self.stale = stale
    }

    /// The runs the text is drawn in: the fragments, or the whole `title` as one run without a
    /// tint of its own. A stale app's runs lose their tints (it is drawn grey as a whole).
    public func runs(of title: String) -> [NookApp.Fragment] {
        guard !fragments.isEmpty, !stale else { return [NookApp.Fragment(title)] }
        return fragments
    }
}
