import NookDisplay

/// One kind of LED hardware: takes frames of its size, and can go dark.
public protocol LEDDriver: AnyObject {
    var size: PixelSize { get }
    /// A human name, such as `ws2812 32x8, serpentine columns from top-left`.
    var name: String { get }
    /// The highest frame rate its bus carries (at most 60).
    var maximumFrameRate: Double { get }
    func show(_ frame: Frame) throws(LEDError)
    /// Every LED off (L5): on stop, SIGTERM, and when the display goes away.
    func clear() throws(LEDError)
}
