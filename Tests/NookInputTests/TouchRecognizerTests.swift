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

/// T1, T2: whatever a device sends, gestures stay well formed.
@Suite("T1 T2 arbitrary event streams")
struct TouchEventStreamTests {
    /// xorshift64*: repeatable streams without a seedable generator in the standard library.
    struct Repeatable: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return state &* 2_685_821_657_736_338_717
        }
    }

    @Test(arguments: [UInt64(1), 7, 42, 1_000_003, 0xDEAD_BEEF])
    func t2_anyEventStreamGivesDownThenUpAndNothingOutsideThem(seed: UInt64) {
        var random = Repeatable(state: seed)
        let codes: [(UInt16, UInt16)] = [(Evdev.absolute, Evdev.slot), (Evdev.absolute, Evdev.trackingID), (Evdev.absolute, Evdev.positionX),
                                         (Evdev.absolute, Evdev.positionY), (Evdev.synchronize, Evdev.report), (Evdev.synchronize, Evdev.dropped),
                                         (Evdev.key, Evdev.buttonTouch), (Evdev.absolute, Evdev.x), (Evdev.absolute, Evdev.y), (Evdev.absolute, 0x3a)]
        let range = TouchAxisRange(minimum: 0, maximum: 4095)
        for kind in [TouchContacts.Kind.multitouch(slots: 10), .singleTouch] {
            var contacts = TouchContacts(kind: kind)
            var recognizer = TouchRecognizer(settings: TouchSettings(), pictureWidth: 1280)
            let mapping = TouchMapping(x: range, y: range, settings: TouchSettings(), picture: (1280, 400), quarterTurns: Int(seed % 4))
            var open = false
            var time = Duration.zero
            func check(_ gestures: [TouchGesture]) {
                for gesture in gestures {
                    switch gesture {
                    case .down:
                        #expect(!open, "down inside a gesture")
                        open = true
                    case .up:
                        #expect(open, "up with no gesture open")
                        open = false
                    case .drag(let point, _), .tap(let point), .swipe(let point, _), .longPress(let point):
                        #expect(open, "\(gesture) outside a gesture")
                        #expect((0...1280).contains(point.x) && (0...400).contains(point.y), "\(point) is on the picture")
                    }
                }
            }
            for _ in 0..<20_000 {
                time += .milliseconds(Int.random(in: 0...40, using: &random))
                let (type, code) = codes[Int.random(in: 0..<codes.count, using: &random)]
                let value: Int32 = switch code {
                case Evdev.slot: Int32.random(in: -2...12, using: &random)
                case Evdev.trackingID: Int32.random(in: -1...3, using: &random)
                case Evdev.buttonTouch: Int32.random(in: 0...1, using: &random)
                default: Bool.random(using: &random) ? Int32.random(in: -500...4600, using: &random) : Int32.random(in: .min ... .max, using: &random)
                }
                let frame: TouchContacts.Frame?
                switch contacts.feed(EvdevEvent(time: time, type: type, code: code, value: value)) {
                case .nothing: frame = nil
                case .frame(let next): frame = next
                case .needsResync(let at): frame = contacts.resync(TouchContacts.DeviceState(), at: at)
                }
                check(recognizer.tick(at: time))
                guard let frame else { continue }
                if let raw = frame.primary {
                    switch mapping.map(rawX: raw.x, rawY: raw.y) {
                    case .inside(let point), .clamped(let point):
                        check(recognizer.contact(point, fingers: frame.fingers, at: frame.time))
                    case .impossible:
                        check(recognizer.cancel(fingersRemain: frame.fingers > 0))
                    }
                } else {
                    check(recognizer.contact(nil, fingers: frame.fingers, at: frame.time))
                }
            }
            check(recognizer.cancel())
            #expect(!open, "the last gesture was closed")
        }
    }
}
