/// How a touch panel is found and read, and the thresholds that turn fingers into gestures
/// (T1–T3). The config keys are nookd's `[touch]` section.
public struct TouchSettings: Sendable, Equatable {
    /// A device path (`/dev/input/event3`) or the name the driver gives it (`Goodix Capacitive
    /// TouchScreen`); nil takes the first device whose capabilities say touchscreen.
    public var device: String?
    /// A swipe is horizontal travel of at least this fraction of the picture's width.
    public var swipeFraction = 0.10
    /// Held still this long: a long press, fired while the finger is still down.
    public var longPress: Duration = .milliseconds(600)
    /// The most a finger may move (logical pixels, either axis) and still tap or long-press;
    /// sideways travel past it starts a drag.
    public var tapMaxMovement: Double = 12
    /// libinput's calibration matrix (udev's `LIBINPUT_CALIBRATION_MATRIX`): six numbers
    /// `a b c d e f` applied to coordinates normalised to 0...1 as `x' = a·x + b·y + c`,
    /// `y' = d·x + e·y + f`. nil takes the device's udev property, if it has one.
    public var calibration: [Double]?
    /// The controller's X axis runs along the glass's Y (after calibration).
    public var swapAxes = false
    /// The controller's X (after any swap) runs right to left.
    public var invertX = false
    /// The controller's Y (after any swap) runs bottom to top.
    public var invertY = false

    public init(device: String? = nil, swipeFraction: Double = 0.10, longPress: Duration = .milliseconds(600),
                tapMaxMovement: Double = 12, calibration: [Double]? = nil, swapAxes: Bool = false,
                invertX: Bool = false, invertY: Bool = false) {
        self.device = device
        self.swipeFraction = swipeFraction
        self.longPress = longPress
        self.tapMaxMovement = tapMaxMovement
        self.calibration = calibration
        self.swapAxes = swapAxes
        self.invertX = invertX
        self.invertY = invertY
    }
}
