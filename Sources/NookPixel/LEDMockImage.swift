import NookDisplay

/// A frame of LED values drawn as the matrix looks (D3 for LEDs): each LED a round dot on
/// black, an unlit LED a faint grey ring so the grid stays visible. For the mock display's
/// PNG frames, golden tests and README pictures.
public enum LEDMockImage {
    /// Each LED becomes a `cell`-pixel square holding its dot, edges smoothed by 4x4 samples.
    public static func render(_ leds: Frame, cell: Int = 16) -> Frame {
        precondition(cell >= 4, "cells smaller than 4 pixels cannot show a round LED")
        let coverage = discCoverage(cell: cell)
        var image = Frame(width: leds.width * cell, height: leds.height * cell)
        let unlit = RGB(hex: 0x1C1C1C)
        for y in 0..<leds.height {
            for x in 0..<leds.width {
                let value = leds[x, y] & 0xFF_FFFF
                let color = value == 0 ? unlit : RGB(pixel: value)
                for row in 0..<cell {
                    for column in 0..<cell {
                        let (disc, ring) = coverage[row * cell + column]
                        let weight = value == 0 ? ring : disc
                        guard weight > 0 else { continue }
                        image[x * cell + column, y * cell + row] = RGB(
                            red: UInt8(Int(color.red) * weight / 16), green: UInt8(Int(color.green) * weight / 16),
                            blue: UInt8(Int(color.blue) * weight / 16)).pixel
                    }
                }
            }
        }
        return image
    }

    /// For each pixel of a cell, how many of its 16 samples fall inside the LED's disc, and
    /// inside the ring an unlit LED shows.
    static func discCoverage(cell: Int) -> [(disc: Int, ring: Int)] {
        let center = Double(cell) / 2
        let radius = Double(cell) * 0.4
        return (0..<cell * cell).map { index in
            var disc = 0, ring = 0
            for sy in 0..<4 {
                for sx in 0..<4 {
                    let dx = Double(index % cell) + (Double(sx) + 0.5) / 4 - center
                    let dy = Double(index / cell) + (Double(sy) + 0.5) / 4 - center
                    let distance = (dx * dx + dy * dy).squareRoot()
                    if distance <= radius { disc += 1 }
                    if distance <= radius, distance >= radius - 1.2 { ring += 1 }
                }
            }
            return (disc, ring)
        }
    }
}
