import NookActivities
@testable import NookDisplay
import Testing

/// M1: the indicator lights as they are drawn over the glass, at AWTRIX's places on an LED
/// matrix, as small marks at the same places on a panel, as the last LEDs of a strip; their
/// blink and fade read off the clock.
@Suite("M1 indicator lights drawn")
struct IndicatorMarksTests {
    static let black: UInt32 = 0xFF00_0000
    static let at = NookInstant.origin

    /// The pixels of `frame` that are not black, as (x, y) → colour.
    func lit(_ frame: Frame) -> [String: UInt32] {
        var lit: [String: UInt32] = [:]
        for y in 0..<frame.height {
            for x in 0..<frame.width where frame.pixels[y * frame.width + x] != Self.black {
                lit["\(x),\(y)"] = frame.pixels[y * frame.width + x] & 0xFF_FFFF
            }
        }
        return lit
    }

    @Test func m1_onA32x8MatrixEachIndicatorIsAtAWTRIXsPixels() {
        // AWTRIX's MatrixDisplayUi::drawIndicators: 1 (31,0) (30,0) (31,1); 2 (31,3) (31,4);
        // 3 (31,7) (31,6) (30,7).
        let expected: [Int: Set<String>] = [1: ["31,0", "30,0", "31,1"], 2: ["31,3", "31,4"], 3: ["31,7", "31,6", "30,7"]]
        for number in 1...3 {
            var frame = Frame(width: 32, height: 8)
            IndicatorMarks.draw([number: .init(color: 0xFF0000, since: Self.at)], at: Self.at, on: &frame, kind: .matrix)
            #expect(Set(lit(frame).keys) == expected[number], "indicator\(number): \(lit(frame))")
            #expect(Set(lit(frame).values) == [0xFF0000])
        }
        var all = Frame(width: 32, height: 8)
        IndicatorMarks.draw([1: .init(color: 0xFF0000, since: Self.at), 2: .init(color: 0x00FF00, since: Self.at),
                             3: .init(color: 0x0000FF, since: Self.at)], at: Self.at, on: &all, kind: .matrix)
        #expect(lit(all).count == 8 && lit(all)["31,4"] == 0x00FF00 && lit(all)["30,7"] == 0x0000FF)
    }

    /// On a display too short for AWTRIX's three places apart (Pimoroni's LED SHIM is 28x3, a
    /// short panel), a pixel shared by two marks is the lower-numbered one's alone: which light
    /// shows there does not depend on the order the lights happen to be kept in.
    @Test(arguments: [(PixelSize(width: 28, height: 3), IndicatorMarks.Kind.matrix), (PixelSize(width: 2, height: 2), .matrix),
                      (PixelSize(width: 40, height: 8), .panel)])
    func m1_onADisplayTooShortForThreeMarksApartNoPixelIsTwoMarks(size: PixelSize, kind: IndicatorMarks.Kind) {
        var owner: [String: Int] = [:]
        for number in 1...3 {
            for cell in IndicatorMarks.cells(of: number, kind: kind, size: size) {
                for y in cell.y..<(cell.y + cell.height) {
                    for x in cell.x..<(cell.x + cell.width) {
                        #expect(owner["\(x),\(y)"] == nil, "(\(x),\(y)) is indicator\(owner["\(x),\(y)"] ?? 0)'s and indicator\(number)'s")
                        owner["\(x),\(y)"] = number
                    }
                }
            }
        }
        #expect(!IndicatorMarks.cells(of: 1, kind: kind, size: size).isEmpty, "indicator 1 always has its corner")
    }

    @Test func m1_onAPanelTheMarksAreSmallSquaresAtTheSamePlacesScaledToThePanel() {
        // A 1280x400 bar: AWTRIX's pixel is a 10-pixel square (1/40 of the short side), 10 in.
        let size = PixelSize(width: 1280, height: 400)
        #expect(IndicatorMarks.cells(of: 1, kind: .panel, size: size) == [
            .init(x: 1260, y: 10, width: 10, height: 10), .init(x: 1250, y: 10, width: 10, height: 10), .init(x: 1260, y: 20, width: 10, height: 10),
        ])
        #expect(IndicatorMarks.cells(of: 2, kind: .panel, size: size) == [
            .init(x: 1260, y: 190, width: 10, height: 10), .init(x: 1260, y: 200, width: 10, height: 10),
        ])
        #expect(IndicatorMarks.cells(of: 3, kind: .panel, size: size) == [
            .init(x: 1260, y: 380, width: 10, height: 10), .init(x: 1260, y: 370, width: 10, height: 10), .init(x: 1250, y: 380, width: 10, height: 10),
        ])
        var frame = Frame(width: 1280, height: 400)
        IndicatorMarks.draw([2: .init(color: 0x32A852, since: Self.at)], at: Self.at, on: &frame, kind: .panel)
        let marked = lit(frame)
        #expect(marked.count == 200 && marked["1260,190"] == 0x32A852 && marked["1269,209"] == 0x32A852 && marked["1270,200"] == nil)
    }

    @Test func m1_onAStripEachIndicatorIsOneOfTheLastLEDs() {
        for (width, height) in [(30, 1), (1, 30)] {
            var frame = Frame(width: width, height: height)
            IndicatorMarks.draw([1: .init(color: 0xFF0000, since: Self.at), 3: .init(color: 0x0000FF, since: Self.at)], at: Self.at, on: &frame, kind: .strip)
            let end = width > 1 ? ["29,0", "27,0"] : ["0,29", "0,27"]
            #expect(lit(frame) == [end[0]: 0xFF0000, end[1]: 0x0000FF], "\(width)x\(height): \(lit(frame))")
        }
        // A strip shorter than the indicator's place has none.
        #expect(IndicatorMarks.cells(of: 3, kind: .strip, size: PixelSize(width: 2, height: 1)).isEmpty)
    }

    /// The marks are drawn on the frame as the display is sent it, turned: each lands where it
    /// stands on the upright glass, as if drawn before the turn.
    @Test(arguments: Rotation.allCases)
    func m1_marksOnATurnedFrameLandWhereTheyStandOnTheUprightGlass(turn: Rotation) {
        for (kind, width, height) in [(IndicatorMarks.Kind.matrix, 32, 8), (.panel, 200, 120)] {
            let lights: [Int: IndicatorMarks.Light] = [1: .init(color: 0xFF0000, since: Self.at), 2: .init(color: 0x00FF00, since: Self.at),
                                                       3: .init(color: 0x0000FF, since: Self.at)]
            var upright = Frame(width: width, height: height)
            IndicatorMarks.draw(lights, at: Self.at, on: &upright, kind: kind)
            var turned = Frame(width: width, height: height).rotated(turn)
            IndicatorMarks.draw(lights, at: Self.at, on: &turned, turned: turn, kind: kind)
            #expect(turned == upright.rotated(turn), "\(kind) turned \(turn)")
        }
    }

    @Test func m1_aBlinkIsOnThenBlackForAsLongAndChangesOnlyAtItsEdges() {
        let since = NookInstant.origin + .seconds(3)
        let light = IndicatorMarks.Light(color: 0x32A852, blink: .milliseconds(500), since: since)
        #expect(light.color(at: since) == 0x32A852 && light.color(at: since + .milliseconds(499)) == 0x32A852)
        #expect(light.color(at: since + .milliseconds(500)) == 0 && light.color(at: since + .milliseconds(999)) == 0)
        #expect(light.color(at: since + .milliseconds(1000)) == 0x32A852)
        #expect(light.nextChange(after: since + .milliseconds(120)) == since + .milliseconds(500))
        #expect(light.nextChange(after: since + .milliseconds(500)) == since + .milliseconds(1000))
        #expect(IndicatorMarks.Light(color: 0xFF0000, since: since).nextChange(after: since) == nil, "a steady light needs no redraw")
    }

    @Test func m1_aFadeRisesAndFallsAsAWTRIXsSineInStepsNoCloserThanTheShortest() {
        let light = IndicatorMarks.Light(color: 0xFF8040, fade: .milliseconds(4000), since: .origin)
        // (sin(2πt/T) + 1) / 2 of each channel: half at the start, full at T/4, black at 3T/4.
        #expect(light.color(at: .origin) == 0x80_4020)
        #expect(light.color(at: .origin + .milliseconds(1000)) == 0xFF8040)
        #expect(light.color(at: .origin + .milliseconds(3000)) == 0)
        // Twenty steps a period: 200 ms; between two steps the colour holds.
        #expect(light.nextChange(after: .origin + .milliseconds(50)) == .origin + .milliseconds(200))
        #expect(light.color(at: .origin + .milliseconds(1010)) == light.color(at: .origin + .milliseconds(1190)))
        // A short fade steps at the shortest step, never faster.
        let quick = IndicatorMarks.Light(color: 0xFF0000, fade: .milliseconds(300), since: .origin)
        #expect(quick.nextChange(after: .origin) == .origin + IndicatorMarks.shortestStep)
        #expect(IndicatorMarks.Light.sine(.pi / 6) > 0.4999 && IndicatorMarks.Light.sine(.pi / 6) < 0.5001)
    }
}
