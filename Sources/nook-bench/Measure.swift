/// Wall time of `work` in milliseconds, on the monotonic clock.
func milliseconds(_ work: () async -> Void) async -> Double {
    let start = ContinuousClock.now
    await work()
    return (ContinuousClock.now - start).nookSeconds * 1000
}

func median(_ values: [Double]) -> Double { NookBench.median(values) }

func report(_ name: String, _ value: Double) {
    let rounded = (value * 1000).rounded() / 1000
    print("\(name): \(rounded)")
}
