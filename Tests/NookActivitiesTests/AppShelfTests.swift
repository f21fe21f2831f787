import NookActivities
import Testing

/// A1: the app model, its checks naming the field, update in place, ownership kept by the
/// caller, and lifetimes on the time given (never a clock read).
@Suite("A1 apps: the model and the shelf")
struct AppShelfTests {
    func app(_ name: String, _ text: String = "21 °C", position: Int? = nil, lifetime: Duration? = nil,
             mode: NookApp.LifetimeMode = .remove) -> NookApp {
        NookApp(name: name, content: .text(text), position: position, lifetime: lifetime, lifetimeMode: mode)
    }

    func problem(_ app: NookApp) -> NookActivityValidationError? {
        do { try app.validate() } catch { return error }
        return nil
    }

    @Test func a1_badFieldsAreRefusedNamingTheField() {
        #expect(problem(app("weather")) == nil)
        #expect(problem(app(""))?.field == "name")
        #expect(problem(app("a/b"))?.field == "name", "a name is one topic level and one path segment")
        #expect(problem(app(String(repeating: "n", count: 65)))?.field == "name")
        #expect(problem(app("weather", "   "))?.field == "text")
        #expect(problem(app("weather", String(repeating: "x", count: NookActivity.Limits.titleCharacters + 1)))?.field == "text")
        var fragments = app("weather")
        fragments.content = .fragments([])
        #expect(problem(fragments)?.field == "text")
        fragments.content = .fragments([.init("21", tint: .named(.red)), .init(" °C")])
        #expect(problem(fragments) == nil)
        #expect(fragments.content.plainText == "21 °C")
        var chart = app("power")
        chart.chart = NookApp.Chart(.bar, Array(repeating: 1, count: 17))
        #expect(problem(chart)?.field == "chart")
        #expect(problem(chart)?.problem.contains("16") == true)
        chart.chart = NookApp.Chart(.line, [1, .nan])
        #expect(problem(chart)?.field == "chart")
        chart.chart = NookApp.Chart(.line, [1, 4, 9])
        #expect(problem(chart) == nil)
        var other = app("x")
        other.progress = 1.5
        #expect(problem(other)?.field == "progress")
        other.progress = nil
        other.duration = .zero
        #expect(problem(other)?.field == "duration")
        // A turn shorter than `[apps] duration_ms` allows would only spin the rotation.
        other.duration = .milliseconds(999)
        #expect(problem(other)?.field == "duration")
        other.duration = .seconds(1)
        #expect(problem(other) == nil)
        other.duration = .seconds(7)
        other.position = -1
        #expect(problem(other)?.field == "pos")
        other.position = 3
        other.lifetime = .seconds(-1)
        #expect(problem(other)?.field == "lifetime")
        other.lifetime = .seconds(600)
        other.icon = ""
        #expect(problem(other)?.field == "icon")
        other.icon = "cloud.sun"
        #expect(problem(other) == nil)
    }

    /// A name is one line of visible text: nothing that hides it, breaks it or reorders it.
    @Test func a1_aNameOfInvisibleLineBreakingOrBidiCharactersOrEndSpacesIsRefused() {
        for bad in ["\u{200B}", "\u{200B}\u{FEFF}", "weather\u{85}x", "weather\u{9B}31m", "a\u{2028}b", "a\u{2029}b",
                    "rehtaew\u{202E}", "\u{2067}weather", "w\u{200F}", "tab\tname", "nul\u{0}"] {
            let refused = problem(app(bad))
            #expect(refused?.field == "name", "\(Array(bad.unicodeScalars)) must be refused")
            #expect(refused.map { !$0.problem.unicodeScalars.contains { $0.value >= 0x80 && $0.value <= 0x9F || $0.value == 0x202E } } ?? true,
                    "the error does not echo the hidden character")
        }
        for good in ["weather", "café", "cafe\u{301}", "👨\u{200D}👩\u{200D}👧", "☀\u{FE0F} sun", "طقس", "天気"] {
            #expect(problem(app(good)) == nil, "\(good) is a name")
        }
        // A space (or any whitespace) at either end would name a second app that reads as the
        // first: "weather " listed beside another user's "weather".
        for spaced in ["weather ", " weather", "weather\u{A0}", "\u{3000}weather", "weather\u{2003}"] {
            let refused = problem(app(spaced))
            #expect(refused?.field == "name" && refused?.problem.contains("begin or end") == true, "\(Array(spaced.unicodeScalars)): \(String(describing: refused))")
        }
        // The limit counts code points and bytes: 64 four-byte characters fit, 65 do not.
        #expect(problem(app(String(repeating: "😀", count: 64))) == nil)
        #expect(problem(app(String(repeating: "😀", count: 65)))?.field == "name")
    }

    @Test func a1_theSameNameUpdatesInPlaceKeepingItsTurn() throws {
        var shelf = NookAppShelf()
        #expect(try shelf.set(app("weather"), at: 100) == nil)
        #expect(try shelf.set(app("bus"), at: 100) == nil)
        let replaced = try shelf.set(app("weather", "22 °C"), at: 160)
        #expect(replaced?.app.content == .text("21 °C"))
        #expect(shelf.count == 2)
        #expect(shelf["weather"]?.setAt == 160, "its lifetime counts from the last set")
        #expect(shelf.ordered.map(\.app.name) == ["weather", "bus"], "an update keeps its place among equals")
        #expect(throws: NookAppShelf.Refusal.self) { try shelf.set(app("bad", ""), at: 0) }
        #expect(shelf.count == 2, "a refused set changes nothing")
    }

    @Test func a1_positionOrdersTheRotationThenArrival() throws {
        var shelf = NookAppShelf()
        try shelf.set(app("c"), at: 0)
        try shelf.set(app("b", position: 2), at: 0)
        try shelf.set(app("a", position: 1), at: 0)
        try shelf.set(app("d"), at: 0)
        #expect(shelf.ordered.map(\.app.name) == ["a", "b", "c", "d"])
    }

    @Test func a1_theShelfIsBounded() throws {
        var shelf = NookAppShelf()
        for index in 0..<NookApp.Limits.count { try shelf.set(app("app\(index)"), at: 0) }
        #expect(throws: NookAppShelf.Refusal.full(NookApp.Limits.count)) { try shelf.set(app("one more"), at: 0) }
        #expect(try shelf.set(app("app0", "updated"), at: 1) != nil, "an update of one kept still goes")
    }

    @Test func a1_aLifetimeRemovesOrMarksStaleOnTheTimeGiven() throws {
        var shelf = NookAppShelf()
        try shelf.set(app("gone", lifetime: .seconds(60)), at: 1000)
        try shelf.set(app("stale", lifetime: .seconds(30), mode: .stale), at: 1000)
        try shelf.set(app("forever"), at: 1000)
        #expect(shelf.nextRunOut(after: 1000) == 1030)
        var (removed, staled) = shelf.runOut(at: 1029, since: 1000)
        #expect(removed.isEmpty && staled.isEmpty)
        #expect(shelf["stale"]?.isStale(at: 1029) == false)
        (removed, staled) = shelf.runOut(at: 1030, since: 1029)
        #expect(removed.isEmpty)
        #expect(staled == ["stale"])
        #expect(shelf["stale"]?.isStale(at: 1030) == true)
        #expect(shelf.nextRunOut(after: 1030) == 1060)
        (removed, staled) = shelf.runOut(at: 1060, since: 1030)
        #expect(removed.map(\.app.name) == ["gone"])
        #expect(staled.isEmpty, "a stale app is named once, when it turns stale")
        #expect(shelf.ordered.map(\.app.name) == ["stale", "forever"])
        // Set again, a stale app is fresh: its lifetime counts from the new set.
        try shelf.set(app("stale", "fresh", lifetime: .seconds(30), mode: .stale), at: 1100)
        #expect(shelf["stale"]?.isStale(at: 1100) == false)
        #expect(shelf.nextRunOut(after: 1100) == 1130)
    }
}
