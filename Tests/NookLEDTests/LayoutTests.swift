import NookLED
import Testing

@Suite("L1 LED layouts")
struct LayoutTests {
    @Test func l1_everyLayoutOptionMatchesTheWiringWalk() throws {
        for (width, height, panel) in [(8, 8, (8, 8)), (32, 8, (32, 8)), (32, 8, (8, 8)), (16, 16, (16, 16)), (16, 16, (8, 8)), (64, 16, (32, 8)), (5, 3, (5, 3))] {
            for serpentine in [false, true] {
                for origin in LEDLayout.Corner.allCases {
                    for order in LEDLayout.Order.allCases {
                        let layout = try LEDLayout(width: width, height: height, panelWidth: panel.0, panelHeight: panel.1,
                                                   serpentine: serpentine, origin: origin, order: order)
                        let chain = walk(width: width, height: height, panel: panel, serpentine: serpentine, origin: origin, order: order)
                        #expect(chain.count == layout.count)
                        for (position, pixel) in chain.enumerated() where layout.index(x: pixel.0, y: pixel.1) != position {
                            Issue.record("\(layout): pixel \(pixel) is LED \(layout.index(x: pixel.0, y: pixel.1)), wired as \(position)")
                            break
                        }
                    }
                }
            }
        }
    }

    @Test func l1_knownWirings() throws {
        // The common 8x8 serpentine panel: row 1 runs right to left.
        let panel = try LEDLayout(width: 8, height: 8, serpentine: true)
        #expect(panel.index(x: 7, y: 1) == 8)
        #expect(panel.index(x: 0, y: 1) == 15)
        // A 32x8 matrix wired in serpentine columns from the top left (the Ulanzi/AWTRIX kind).
        let awtrix = try LEDLayout(width: 32, height: 8, serpentine: true, order: .columns)
        #expect(awtrix.index(x: 0, y: 7) == 7)
        #expect(awtrix.index(x: 1, y: 7) == 8)
        #expect(awtrix.index(x: 1, y: 0) == 15)
        // Two 8x8 tiles side by side: the second tile starts at LED 64.
        let tiled = try LEDLayout(width: 16, height: 8, panelWidth: 8, panelHeight: 8)
        #expect(tiled.index(x: 8, y: 0) == 64)
        #expect(tiled.index(x: 7, y: 7) == 63)
        let fromBottomRight = try LEDLayout(width: 4, height: 2, origin: .bottomRight)
        #expect(fromBottomRight.index(x: 3, y: 1) == 0)
        #expect(fromBottomRight.index(x: 0, y: 0) == 7)
    }

    @Test func l1_badGeometryIsRefusedByName() {
        #expect(throws: LEDError("tiles of 8x8 do not divide a 20x8 display evenly")) {
            try LEDLayout(width: 20, height: 8, panelWidth: 8, panelHeight: 8)
        }
        #expect(throws: LEDError.self) { try LEDLayout(width: 0, height: 8) }
    }
}
