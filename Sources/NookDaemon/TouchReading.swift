import NookActivities
import NookDisplay
import NookInput

/// What reads a touch panel for the touch service: NookInput's `TouchInput` (the kernel's
/// input devices), or a test's own.
protocol TouchReading: AnyObject, Sendable {
    func start()
    func stop()
    /// The device read now and what is wrong, for `status`.
    var reading: TouchReadingState { get }
}

struct TouchReadingState: Sendable, Equatable {
    /// The device node, nil while none is found.
    var device: String?
    /// The name the kernel gives it.
    var name: String?
    var problem: String?
}

/// Where the picture is on the glass, for turning a touch into a point of the picture (T3).
struct TouchGeometry: Sendable, Equatable {
    /// The picture as drawn, before any turn (logical pixels).
    var picture: PixelSize
    /// `display.rotation`.
    var rotation: Rotation
    /// The turn the panel's orientation property asks for (R6).
    var panelOrientation: Rotation
}

/// Makes the reader the service starts: given the settings, the geometry, where gestures go and
/// where its log lines go.
typealias TouchReaderMaker = @Sendable (_ settings: TouchConfig, _ geometry: TouchGeometry, _ gesture: @escaping @Sendable (TouchGesture) -> Void,
                                        _ info: @escaping @Sendable (String) -> Void, _ warn: @escaping @Sendable (String) -> Void) -> any TouchReading
