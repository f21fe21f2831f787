import NookSystem

/// One `struct input_event`: NookSystem's, which the beeper writes too.
public typealias EvdevEvent = InputEvent

/// The event types and codes of `linux/input-event-codes.h` that touch uses (a stable ABI).
public enum Evdev {
    public static let synchronize: UInt16 = 0x00    // EV_SYN
    public static let key: UInt16 = 0x01            // EV_KEY
    public static let absolute: UInt16 = 0x03       // EV_ABS

    public static let report: UInt16 = 0            // SYN_REPORT
    public static let dropped: UInt16 = 3           // SYN_DROPPED

    public static let buttonTouch: UInt16 = 0x14a   // BTN_TOUCH

    public static let x: UInt16 = 0x00              // ABS_X
    public static let y: UInt16 = 0x01              // ABS_Y
    public static let slot: UInt16 = 0x2f           // ABS_MT_SLOT
    public static let positionX: UInt16 = 0x35      // ABS_MT_POSITION_X
    public static let positionY: UInt16 = 0x36      // ABS_MT_POSITION_Y
    public static let trackingID: UInt16 = 0x39     // ABS_MT_TRACKING_ID
    public static let absoluteCount = 0x40          // ABS_CNT
    public static let keyCount = 0x300              // KEY_CNT

    public static let propertyDirect = 0x01         // INPUT_PROP_DIRECT
}
