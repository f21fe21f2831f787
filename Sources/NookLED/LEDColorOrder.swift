/// The order in which a chip expects its colour channels on the wire: WS2812 `grb`, SK6812
/// RGBW `grbw`, APA102 `bgr`. Parsed from its letters, so any order of R, G, B (and W) works.
public struct LEDColorOrder: Hashable, Sendable, CustomStringConvertible {
    /// For each wire position, the channel: 0 red, 1 green, 2 blue, 3 white.
    public let channels: [Int]

    public init?(_ text: String) {
        let letters = Array(text.lowercased())
        let map: [Character: Int] = ["r": 0, "g": 1, "b": 2, "w": 3]
        let channels = letters.compactMap { map[$0] }
        guard channels.count == letters.count, channels.count == 3 || channels.count == 4,
              Set(channels).count == channels.count, channels.count == 3 ? !channels.contains(3) : true else { return nil }
        self.channels = channels
    }

    public static let grb = LEDColorOrder("grb")!
    public static let grbw = LEDColorOrder("grbw")!
    public static let bgr = LEDColorOrder("bgr")!
    public static let rgb = LEDColorOrder("rgb")!

    public var hasWhite: Bool { channels.count == 4 }
    public var count: Int { channels.count }

    public var description: String { String(channels.map { Array("rgbw")[$0] }) }
}
