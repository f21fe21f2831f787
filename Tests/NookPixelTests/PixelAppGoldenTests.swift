import NookActivities
import NookDisplay
import NookPixel
import NookTestSupport
import NookTestTraits
import Testing

/// A5: apps on a 32x8 matrix as the LEDs look (the images docs/led.md and docs/apps.md show),
/// pinned as golden PNGs like the cards'.
@Suite("A5 apps on a 32x8 matrix, golden", .cpuBound)
struct PixelAppGoldenTests {
    func app(_ text: String, fragments: [NookApp.Fragment] = [], icon: String?, tint: NookTint, progress: Double? = nil,
             chart: NookApp.Chart? = nil) -> NookActivity {
        var card = NookActivity(title: text, systemImage: icon, tint: tint, presentation: .blocker(timeout: nil), progress: progress)
        card.app = NookAppFace(fragments: fragments, chart: chart)
        return card
    }

    func render(_ activity: NookActivity, at elapsed: Duration = .zero) -> Frame {
        var frame = Frame(width: 32, height: 8)
        PixelRenderer(size: PixelSize(width: 32, height: 8)).render(activity, elapsed: elapsed, into: &frame)
        return frame
    }

    @Test func a5_goldenApps() throws {
        let weather = app("21°C", fragments: [NookApp.Fragment("21", tint: .named(.orange)), NookApp.Fragment("°C", tint: .named(.cyan))],
                          icon: "sun.max", tint: .named(.yellow), progress: 0.7)
        try checkGolden(render(weather), "app-32x8-weather")
        try checkGolden(render(app("", icon: "bolt", tint: .named(.green), chart: NookApp.Chart(.bar, [2, 4, 3, 7, 8, 5]))), "app-32x8-bars")
        try checkGolden(render(app("", icon: "drop", tint: .named(.cyan), chart: NookApp.Chart(.line, [3, 5, 4, 8, 6, 2, 4]))), "app-32x8-line")
        try checkGolden(render(app("Bus 42 in 3 min", icon: "clock", tint: .named(.orange)), at: .milliseconds(1500)), "app-32x8-scroll-1.5s")
    }
}
