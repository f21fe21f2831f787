#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookDisplay
import NookLED
import NookPixel

/// The LED figures: WS2812 encoding per LED, and one scrolled marquee frame on a 32x8
/// matrix rendered and encoded. Both are medians of rounds of many repetitions, timed in the
/// thread's CPU time: what a frame costs the board, not how long a shared machine made it wait.
enum LEDFigures {
    static func cpuSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// Discards what the SPI bus would carry (the figure is the encoding, not the bus).
    final class NullSPI: SPITransport {
        func transfer(_ bytes: [UInt8], speedHz: UInt32) throws(LEDError) {}
    }

    /// `led_encode_ns_per_led`: a 32x32 (1,024 LEDs) WS2812 frame → layout, gamma, budget, SPI
    /// bytes, per LED; one sample per round. With `fading`, the rounds cycle a fade of eight
    /// brightness levels, every frame over the budget by a different amount: the encoder's
    /// scaling from the previous frame never fits and each frame is written twice (its worst case).
    static func encodeNanosecondsPerLED(fading: Bool = false, rounds: Int = 9) throws -> [Double] {
        let layout = try LEDLayout(width: 32, height: 32, panelWidth: 16, panelHeight: 16, serpentine: true)
        let strip = try SPIStrip(chip: .ws2812, layout: layout, safety: LEDSafety(supplyMilliamps: 10_000), transport: NullSPI())
        var frame = Frame(width: 32, height: 32)
        for index in frame.pixels.indices { frame.pixels[index] = 0xFF00_0000 | UInt32(truncatingIfNeeded: index &* 2_654_435_761) & 0xFF_FFFF }
        let frames = fading ? (0..<8).map { level in
            Frame(width: 32, height: 32, pixels: frame.pixels.map { value in
                let scale = UInt32(255 - level * 12)
                let red = (value >> 16 & 0xFF) * scale / 255, green = (value >> 8 & 0xFF) * scale / 255, blue = (value & 0xFF) * scale / 255
                return 0xFF00_0000 | red << 16 | green << 8 | blue
            })
        } : [frame]
        let repetitions = 2000
        var samples: [Double] = []
        for _ in 0..<rounds {
            let start = cpuSeconds()
            for step in 0..<repetitions { try strip.show(frames[step % frames.count]) }
            samples.append((cpuSeconds() - start) * 1e9 / Double(repetitions * layout.count))
        }
        return samples
    }

    /// `led_marquee_frame_us`: one scrolled frame of a long title at 32x8, rendered and encoded.
    static func marqueeFrameMicroseconds() throws -> Double {
        let size = PixelSize(width: 32, height: 8)
        let renderer = PixelRenderer(size: size)
        let strip = try SPIStrip(chip: .ws2812, layout: try LEDLayout(width: 32, height: 8, serpentine: true, order: .columns),
                                 safety: LEDSafety(), transport: NullSPI())
        let activity = NookActivity(title: "The nightly backup of every home directory finished", systemImage: "checkmark.circle", tint: .named(.green), progress: 0.7)
        var frame = Frame(width: 32, height: 8)
        let repetitions = 2000
        var samples: [Double] = []
        for round in 0..<7 {
            let start = cpuSeconds()
            for step in 0..<repetitions {
                renderer.render(activity, elapsed: .milliseconds((round * repetitions + step) * 16), into: &frame)
                try strip.show(frame)
            }
            samples.append((cpuSeconds() - start) * 1e6 / Double(repetitions))
        }
        return median(samples)
    }
}
