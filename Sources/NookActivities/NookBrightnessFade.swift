/// A brightness change spread over time (Z2): the panel's level never jumps, it passes through
/// at least `minimumSteps` distinct levels (as many as exist between the two, if fewer) evenly
/// over `duration`. Levels are in the device's own units (a backlight's 0…max_brightness).
public struct NookBrightnessFade: Hashable, Sendable {
    public struct Step: Hashable, Sendable {
        /// From the start of the fade.
        public var offset: Duration
        public var level: Int

        public init(offset: Duration, level: Int) { (self.offset, self.level) = (offset, level) }
    }

    public let steps: [Step]

    public init(from start: Int, to end: Int, over duration: Duration, minimumSteps: Int = 10) {
        precondition(minimumSteps > 0 && duration >= .zero)
        let distance = abs(end - start)
        guard distance > 0 else {
            steps = []
            return
        }
        // Every level when there are few; otherwise as many steps as fit one per 20 ms (a
        // smooth fade), and never fewer than minimumSteps.
        let perFrame = Int(duration / .milliseconds(20))
        let count = min(distance, max(minimumSteps, perFrame))
        var result: [Step] = []
        for index in 1...count {
            let fraction = Double(index) / Double(count)
            let level = start + Int((Double(end - start) * fraction).rounded())
            if let last = result.last, last.level == level { continue }
            result.append(Step(offset: duration * fraction, level: level))
        }
        steps = result
    }
}
