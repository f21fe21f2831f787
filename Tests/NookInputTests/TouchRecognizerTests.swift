@testable import NookInput
import Testing

/// T2: fingers to gestures, on injected times.
@Suite("T2 touch gestures")
struct TouchRecognizerTests {
    /// A 1280-pixel-wide picture: a swipe is 128 px of travel.
    func recognizer(_ settings: TouchSettings = TouchSettings()) -> TouchRecognizer {
        TouchRecognizer(settings: settings, pictureWidth: 1280)
    }

    func ms(_ value: Int) -> Duration { .milliseconds(value) }
    func at(_ x: Double, _ y: Double) -> TouchPoint { TouchPoint(x: x, y: y) }

    @Test func t2_aShortStillTouchIsATapAtWhereItBegan() {
        var touch = recognizer()
        #expect(touch.contact(at(100, 50), fingers: 1, at: ms(1000)) == [.down(at(100, 50))])
        #expect(touch.contact(at(104, 47), fingers: 1, at: ms(1050)) == [], "jitter within tapMaxMovement is no drag")
        #expect(touch.contact(nil, fingers: 0, at: ms(1120)) == [.tap(at(100, 50)), .up(cancelled: false)])
        #expect(!touch.isOpen && touch.deadline == nil)
    }

    @Test func t2_sidewaysTravelPastTheFractionIsASwipeEitherWay() {
        for sign in [1.0, -1.0] {
            var touch = recognizer()
            #expect(touch.contact(at(640, 200), fingers: 1, at: ms(0)) == [.down(at(640, 200))])
            #expect(touch.contact(at(640 + sign * 10, 201), fingers: 1, at: ms(16)) == [], "not yet past tapMaxMovement")
            #expect(touch.contact(at(640 + sign * 60, 204), fingers: 1, at: ms(32)) == [.drag(at(640 + sign * 60, 204), dx: sign * 60)])
            #expect(touch.contact(at(640 + sign * 130, 210), fingers: 1, at: ms(48)) == [.drag(at(640 + sign * 130, 210), dx: sign * 130)])
            #expect(touch.contact(nil, fingers: 0, at: ms(64)) == [.swipe(at(640 + sign * 130, 210), dx: sign * 130), .up(cancelled: false)])
        }
    }

    @Test func t2_aDragLetGoShortOfTheThresholdIsNoSwipe() {
        var touch = recognizer()
        _ = touch.contact(at(640, 200), fingers: 1, at: ms(0))
        #expect(touch.contact(at(740, 200), fingers: 1, at: ms(100)) == [.drag(at(740, 200), dx: 100)])
        // Back a little: the card follows back.
        #expect(touch.contact(at(720, 200), fingers: 1, at: ms(150)) == [.drag(at(720, 200), dx: 80)])
        #expect(touch.contact(nil, fingers: 0, at: ms(200)) == [.up(cancelled: false)], "80 px of 1280 is short of 10 %")
    }

    @Test func t2_theSwipeFractionIsASetting() {
        var touch = recognizer(TouchSettings(swipeFraction: 0.05))
        _ = touch.contact(at(640, 200), fingers: 1, at: ms(0))
        _ = touch.contact(at(720, 200), fingers: 1, at: ms(100))
        #expect(touch.contact(nil, fingers: 0, at: ms(200)) == [.swipe(at(720, 200), dx: 80), .up(cancelled: false)])
    }

    @Test func t2_thresholdsThatAreNotNumbersTakeTheirDefaults() {
        let touch = TouchRecognizer(settings: TouchSettings(swipeFraction: .nan, longPress: .zero, tapMaxMovement: -3), pictureWidth: 1280)
        #expect(touch.settings == TouchSettings())
        #expect(touch.swipeDistance == 128)
    }

    @Test func t2_mostlyVerticalTravelIsNeitherDragNorSwipe() {
        var touch = recognizer()
        _ = touch.contact(at(640, 100), fingers: 1, at: ms(0))
        #expect(touch.contact(at(660, 300), fingers: 1, at: ms(100)) == [])
        #expect(touch.contact(at(500, 390), fingers: 1, at: ms(150)) == [], "140 px sideways but 290 down: never a drag")
        #expect(touch.contact(nil, fingers: 0, at: ms(200)) == [.up(cancelled: false)])
    }

    @Test func t2_aStillFingerBecomesALongPressWhileDownThenNothingButUp() {
        var touch = recognizer()
        _ = touch.contact(at(300, 200), fingers: 1, at: ms(5000))
        #expect(touch.deadline == ms(5600))
        #expect(touch.tick(at: ms(5599)) == [])
        #expect(touch.contact(at(305, 203), fingers: 1, at: ms(5300)) == [])
        #expect(touch.tick(at: ms(5600)) == [.longPress(at(305, 203))])
        #expect(touch.tick(at: ms(7000)) == [], "one long press")
        #expect(touch.contact(at(600, 200), fingers: 1, at: ms(7100)) == [], "no drag after a long press")
        #expect(touch.contact(nil, fingers: 0, at: ms(7200)) == [.up(cancelled: false)], "no tap or swipe either")
    }

    @Test func t2_theLongPressTimeIsASettingAndMovingAwayPreventsIt() {
        var touch = recognizer(TouchSettings(longPress: .milliseconds(300)))
        _ = touch.contact(at(300, 200), fingers: 1, at: ms(0))
        #expect(touch.tick(at: ms(300)) == [.longPress(at(300, 200))])
        var moved = recognizer()
        _ = moved.contact(at(300, 200), fingers: 1, at: ms(0))
        _ = moved.contact(at(300, 240), fingers: 1, at: ms(100))
        #expect(moved.tick(at: ms(700)) == [], "moved 40 px: no long press")
        #expect(moved.contact(nil, fingers: 0, at: ms(800)) == [.up(cancelled: false)])
    }

    @Test func t2_aLateContactStillFiresTheLongPressItPassed() {
        // The reader may be woken by the next report rather than its deadline.
        var touch = recognizer()
        _ = touch.contact(at(300, 200), fingers: 1, at: ms(0))
        #expect(touch.contact(at(301, 200), fingers: 1, at: ms(650)) == [.longPress(at(300, 200))])
        #expect(touch.contact(nil, fingers: 0, at: ms(700)) == [.up(cancelled: false)])
    }

    @Test func t2_theFirstFingerDrivesAndUpWaitsForTheLast() {
        var touch = recognizer()
        #expect(touch.contact(at(100, 100), fingers: 1, at: ms(0)) == [.down(at(100, 100))])
        // A second finger lands: nothing moves; the first keeps driving.
        #expect(touch.contact(at(102, 100), fingers: 2, at: ms(20)) == [])
        #expect(touch.contact(at(260, 100), fingers: 2, at: ms(60)) == [.drag(at(260, 100), dx: 160)])
        // The first lifts: its swipe is judged now; the queue stays held for the other finger.
        #expect(touch.contact(nil, fingers: 1, at: ms(80)) == [.swipe(at(260, 100), dx: 160)])
        #expect(touch.tick(at: ms(2000)) == [], "no long press from the remaining finger")
        #expect(touch.contact(nil, fingers: 0, at: ms(2100)) == [.up(cancelled: false)])
        // Then a new touch starts a new gesture.
        #expect(touch.contact(at(50, 50), fingers: 1, at: ms(3000)) == [.down(at(50, 50))])
    }

    @Test func t2_aVanishedDeviceEndsTheGestureCancelledOnce() {
        var touch = recognizer()
        _ = touch.contact(at(100, 100), fingers: 1, at: ms(0))
        _ = touch.contact(at(200, 100), fingers: 1, at: ms(50))
        #expect(touch.cancel() == [.up(cancelled: true)])
        #expect(touch.cancel() == [], "nothing open to close")
        #expect(!touch.isOpen)
        #expect(touch.contact(at(10, 10), fingers: 1, at: ms(100)) == [.down(at(10, 10))], "a new touch works")
    }

    @Test func t2_fingersLeftDownAfterACancelAreIgnoredUntilTheyLift() {
        var touch = recognizer()
        _ = touch.contact(at(100, 100), fingers: 1, at: ms(0))
        #expect(touch.cancel(fingersRemain: true) == [.up(cancelled: true)])
        #expect(touch.contact(at(400, 100), fingers: 1, at: ms(50)) == [])
        #expect(touch.tick(at: ms(5000)) == [])
        #expect(touch.contact(nil, fingers: 0, at: ms(5100)) == [], "already closed")
        #expect(touch.contact(at(10, 10), fingers: 1, at: ms(6000)) == [.down(at(10, 10))])
    }

    @Test func t2_aContactHeldPastTheLimitIsCancelledSoTheQueueIsNotHeldForGood() {
        var touch = TouchRecognizer(settings: TouchSettings(), pictureWidth: 1280, maximumHold: .seconds(30))
        _ = touch.contact(at(100, 100), fingers: 1, at: .seconds(1))
        #expect(touch.tick(at: .seconds(1) + ms(600)) == [.longPress(at(100, 100))])
        #expect(touch.deadline == .seconds(31))
        #expect(touch.tick(at: .seconds(31)) == [.up(cancelled: true)])
        // A stuck controller keeps reporting the finger: ignored, and nothing more to close.
        #expect(touch.contact(at(100, 100), fingers: 1, at: .seconds(40)) == [])
        #expect(touch.deadline == nil)
        #expect(touch.contact(nil, fingers: 0, at: .seconds(41)) == [])
    }

    @Test func t2_aFloodOfReportsIsBoundedWorkAndEveryDownIsClosed() {
        var touch = recognizer()
        var downs = 0, ups = 0, produced = 0
        // A stuck controller: 10,000 reports in a second of a finger jittering on and off.
        for index in 0..<10_000 {
            let time = Duration.microseconds(100 * index)
            let gestures = index % 7 == 6 ? touch.contact(nil, fingers: 0, at: time)
                : touch.contact(at(Double(index % 50), 10), fingers: 1, at: time)
            produced += gestures.count
            for gesture in gestures {
                if case .down = gesture { downs += 1 }
                if case .up = gesture { ups += 1 }
            }
        }
        for gesture in touch.cancel() { if case .up = gesture { ups += 1 } }
        #expect(downs == ups && downs > 0)
        #expect(produced <= 10_000 * 3, "at most a few gestures per report")
    }
}
