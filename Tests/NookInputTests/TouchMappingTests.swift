import NookDisplay
@testable import NookInput
import Testing

/// T3: a raw touch lands on the picture's point under the finger.
@Suite("T3 touch coordinates")
struct TouchMappingTests {
    let range = TouchAxisRange(minimum: 0, maximum: 4095)

    /// The raw value of the middle of glass pixel `index` of `count`.
    func raw(_ index: Int, of count: Int, _ axis: TouchAxisRange) -> Int32 {
        let fraction = (Double(index) + 0.5) / Double(count)
        return Int32((Double(axis.minimum) + fraction * Double(axis.maximum - axis.minimum)).rounded())
    }

    func point(_ outcome: TouchMapping.Outcome) -> TouchPoint? {
        if case .inside(let point) = outcome { return point }
        return nil
    }

    @Test(arguments: 0..<4, 0..<4)
    func t3_eachCornerOfThePictureIsTouchedWhereTheDisplayDrawsItInEveryRotation(quarterTurns: Int, panelQuarterTurns: Int) throws {
        let width = 12, height = 5
        var picture = Frame(width: width, height: height)
        let corners = [(0, 0), (width - 1, 0), (0, height - 1), (width - 1, height - 1)]
        for (index, corner) in corners.enumerated() { picture[corner.0, corner.1] = 0xFF00_0001 + UInt32(index) }
        // The display's own turn of the picture: the configured rotation, then the panel's.
        let rotation = try #require(Rotation(degrees: 90 * quarterTurns)).then(try #require(Rotation(degrees: 90 * panelQuarterTurns)))
        let glass = picture.rotated(rotation)
        let mapping = TouchMapping(x: range, y: TouchAxisRange(minimum: -100, maximum: 900), settings: TouchSettings(),
                                   picture: (width, height), quarterTurns: quarterTurns, panelQuarterTurns: panelQuarterTurns)
        var found = 0
        for gy in 0..<glass.height {
            for gx in 0..<glass.width {
                let pixel = glass[gx, gy]
                guard pixel != 0xFF00_0000 else { continue }
                let corner = corners[Int(pixel - 0xFF00_0001)]
                let touched = try #require(point(mapping.map(rawX: raw(gx, of: glass.width, mapping.x), rawY: raw(gy, of: glass.height, mapping.y))))
                #expect(Int(touched.x) == corner.0 && Int(touched.y) == corner.1,
                        "glass (\(gx), \(gy)) turned \(rotation) shows picture \(corner), touch mapped to \(touched)")
                found += 1
            }
        }
        #expect(found == 4)
    }

    @Test func t3_theAxisRangeAndItsMinimumAreHonoured() {
        let mapping = TouchMapping(x: TouchAxisRange(minimum: 100, maximum: 1100), y: TouchAxisRange(minimum: 0, maximum: 500),
                                   settings: TouchSettings(), picture: (1280, 400), quarterTurns: 0)
        #expect(mapping.map(rawX: 100, rawY: 0) == .inside(TouchPoint(x: 0, y: 0)))
        #expect(mapping.map(rawX: 600, rawY: 250) == .inside(TouchPoint(x: 640, y: 200)))
        #expect(mapping.map(rawX: 1100, rawY: 500) == .inside(TouchPoint(x: 1280, y: 400)))
    }

    @Test func t3_aBarPanelNativelyPortraitTurnedToLandscape() {
        // A 400x1280 panel turned a quarter: the picture is 1280 wide, 400 high. The finger at
        // the glass's top right (x max, y 0) is on the picture's top left.
        let mapping = TouchMapping(x: TouchAxisRange(minimum: 0, maximum: 399), y: TouchAxisRange(minimum: 0, maximum: 1279),
                                   settings: TouchSettings(), picture: (1280, 400), quarterTurns: 1)
        #expect(mapping.map(rawX: 399, rawY: 0) == .inside(TouchPoint(x: 0, y: 0)))
        #expect(mapping.map(rawX: 0, rawY: 1279) == .inside(TouchPoint(x: 1280, y: 400)))
    }

    @Test func t3_swapAndInvertFixAControllerWiredDifferently() {
        let settings = TouchSettings(swapAxes: true, invertX: true)
        let mapping = TouchMapping(x: range, y: range, settings: settings, picture: (100, 50), quarterTurns: 0)
        // Raw x runs along the glass's y; raw y, inverted, along its x.
        #expect(mapping.map(rawX: 4095, rawY: 0) == .inside(TouchPoint(x: 100, y: 50)))
        #expect(mapping.map(rawX: 0, rawY: 4095) == .inside(TouchPoint(x: 0, y: 0)))
        let inverted = TouchMapping(x: range, y: range, settings: TouchSettings(invertY: true), picture: (100, 50), quarterTurns: 0)
        #expect(inverted.map(rawX: 0, rawY: 0) == .inside(TouchPoint(x: 0, y: 50)))
    }

    @Test func t3_theCalibrationMatrixIsAppliedAsLibinputDoes() {
        // libinput's example for a touchscreen turned 90° clockwise: 0 -1 1 1 0 0.
        let turned = TouchMapping(x: range, y: range, settings: TouchSettings(calibration: [0, -1, 1, 1, 0, 0]), picture: (100, 50), quarterTurns: 0)
        #expect(turned.map(rawX: 0, rawY: 0) == .inside(TouchPoint(x: 100, y: 0)))
        #expect(turned.map(rawX: 4095, rawY: 4095) == .inside(TouchPoint(x: 0, y: 50)))
        // A calibration that spreads the range: the edges of the glass are reached sooner.
        let spread = TouchMapping(x: range, y: range, settings: TouchSettings(calibration: [1.25, 0, -0.125, 0, 1, 0]), picture: (800, 50), quarterTurns: 0)
        guard case .inside(let middle) = spread.map(rawX: 2048, rawY: 0) else { Issue.record("the middle is inside"); return }
        #expect(abs(middle.x - 400) < 0.5)
        #expect(spread.map(rawX: 0, rawY: 0) == .clamped(TouchPoint(x: 0, y: 0)), "moved off the glass: taken at its edge")
    }

    @Test func t3_configOverridesUdevAndABadMatrixIsTheIdentity() {
        let fromUdev = TouchMapping(x: range, y: range, settings: TouchSettings(), deviceCalibration: [-1, 0, 1, 0, 1, 0], picture: (100, 50), quarterTurns: 0)
        #expect(fromUdev.map(rawX: 0, rawY: 0) == .inside(TouchPoint(x: 100, y: 0)))
        let overridden = TouchMapping(x: range, y: range, settings: TouchSettings(calibration: TouchMapping.identity), deviceCalibration: [-1, 0, 1, 0, 1, 0], picture: (100, 50), quarterTurns: 0)
        #expect(overridden.map(rawX: 0, rawY: 0) == .inside(TouchPoint(x: 0, y: 0)))
        let bad = TouchMapping(x: range, y: range, settings: TouchSettings(calibration: [1, 0, .nan, 0, 1, 0]), picture: (100, 50), quarterTurns: 0)
        #expect(bad.calibration == TouchMapping.identity)
    }

    @Test func t3_valuesJustPastTheRangeAreClampedAndFarPastAreImpossible() {
        let mapping = TouchMapping(x: range, y: range, settings: TouchSettings(), picture: (100, 100), quarterTurns: 0)
        #expect(mapping.map(rawX: 4100, rawY: -3) == .clamped(TouchPoint(x: 100, y: 0)))
        #expect(mapping.map(rawX: 40_000, rawY: 10) == .impossible)
        #expect(mapping.map(rawX: 10, rawY: Int32.min) == .impossible)
        let empty = TouchMapping(x: TouchAxisRange(minimum: 5, maximum: 5), y: range, settings: TouchSettings(), picture: (100, 100), quarterTurns: 0)
        #expect(empty.map(rawX: 5, rawY: 5) == .impossible)
    }

    @Test func t3_udevsCalibrationPropertyIsRead() {
        let entry = "S:input/by-path/platform-goodix-event\nE:ID_INPUT=1\nE:ID_INPUT_TOUCHSCREEN=1\nE:LIBINPUT_CALIBRATION_MATRIX=0 1 0 -1 0 1\nG:seat\n"
        #expect(TouchDevice.calibration(udevEntry: entry) == [0, 1, 0, -1, 0, 1])
        #expect(TouchDevice.calibration(udevEntry: "E:ID_INPUT=1\n") == nil)
        #expect(TouchDevice.calibration(udevEntry: "E:LIBINPUT_CALIBRATION_MATRIX=1 0 0 0 1\n") == nil, "five numbers")
        #expect(TouchDevice.calibration(udevEntry: "E:LIBINPUT_CALIBRATION_MATRIX=1 0 0 0 1 x\n") == nil)
        #expect(TouchDevice.parseCalibration("1.02 0 -0.01 0 1.03 -0.015") == [1.02, 0, -0.01, 0, 1.03, -0.015])
    }
}
