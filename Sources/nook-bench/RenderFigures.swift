#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookDisplay
import NookRender

/// Renderer costs against the plainest operation on the same frame, measured side by side.
struct RenderFigures {
    let size: PixelSize
    let repetitions: Int

    /// Median time of `body` per call over `repetitions`, in milliseconds.
    private func perCall(_ body: () -> Void) -> Double {
        var samples: [Double] = []
        for _ in 0..<repetitions {
            let start = ContinuousClock.now
            body()
            samples.append((ContinuousClock.now - start).nookSeconds * 1000)
        }
        return median(samples)
    }

    func run() -> (anim: Double, render: Double, rotate: Double) {
        let activity = NookActivity(title: "Build finished", subtitle: "Debug · 12.4s", systemImage: "hammer",
                                    tint: .named(.green), progress: 0.6)
        let renderer = CardRenderer(theme: .dark)
        let card = renderer.render(activity, size: size).frame
        let home = HomeRenderer(theme: .dark).render(.clock, size: size, time: LocalTime.now())
        var output = Frame(width: size.width, height: size.height)
        var rotated = Frame(width: size.height, height: size.width)
        let byteCount = size.width * size.height * 4

        var progress = 0.0
        let memcpyMs = perCall {
            output.pixels.withUnsafeMutableBytes { target in
                card.pixels.withUnsafeBytes { source in
                    target.baseAddress!.copyMemory(from: source.baseAddress!, byteCount: byteCount)
                }
            }
        }
        let animMs = perCall {
            progress = progress >= 1 ? 0.05 : progress + 0.07
            SlideTransition.compose(card: card, under: home, progress: progress, into: &output)
        }
        let memsetMs = perCall {
            output.pixels.withUnsafeMutableBytes { target in _ = memset(target.baseAddress!, 0x20, byteCount) }
        }
        let renderMs = perCall { _ = renderer.render(activity, size: size) }
        let rotateMs = perCall { card.rotate(.quarter, into: &rotated) }
        return (animMs / memcpyMs, renderMs / memsetMs, rotateMs / memcpyMs)
    }
}
