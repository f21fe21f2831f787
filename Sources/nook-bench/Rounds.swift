#if canImport(Glibc)
import Glibc
#endif

// Figures measured in rounds, with their spread.
//
// A shared machine makes any single timing a lottery: one round that met a compiler on the
// other core can pass or fail a goal by itself. So every timed figure is measured in several
// rounds inside one run and printed as its median, then its spread on a line of its own:
//
//     card_render_vs_memset_1280x400: 5.1
//     card_render_vs_memset_1280x400_range: 4.8 5.9
//
// To add a figure, measure one round in a closure and hand it to `rounds`:
//
//     report("mqtt_publish_ms_p99", try await rounds(5) { try measureOneRound() })
//
// For a ratio against a yardstick (memcpy, socat, ...), let `interleavedRatio` alternate the
// two so a burst of load falls on both sides alike:
//
//     report("thing_vs_memcpy", await rounds { interleavedRatio(repetitions: 50, measured: { thing() }, baseline: { copy() }) })
//
// Where load would blur a figure, report a count that does not depend on it beside the time:
// `pageFaults { ... }` (minor faults, from getrusage) or, outside the benchmark, instruction
// counts from callgrind and cache misses from cachegrind (see docs/benchmarks.md).

/// The rounds of one figure: their median and the smallest and largest.
struct Spread {
    var rounds: [Double]
    var median: Double { NookBench.median(rounds) }
    var min: Double { rounds.min() ?? .nan }
    var max: Double { rounds.max() ?? .nan }
}

/// Runs `round` `count` times (one value each) and keeps every value.
func rounds(_ count: Int = 5, _ round: () async throws -> Double) async rethrows -> Spread {
    var values: [Double] = []
    for _ in 0..<count { values.append(try await round()) }
    return Spread(rounds: values)
}

/// One round of a ratio: `measured` and `baseline` are called alternately `repetitions` times
/// each, each side timed per call; returns the median of `measured` over the median of `baseline`.
func interleavedRatio(repetitions: Int, measured: () -> Void, baseline: () -> Void) -> Double {
    var measuredSamples: [Double] = [], baselineSamples: [Double] = []
    measuredSamples.reserveCapacity(repetitions)
    baselineSamples.reserveCapacity(repetitions)
    for _ in 0..<repetitions {
        baselineSamples.append(secondsTaken(baseline))
        measuredSamples.append(secondsTaken(measured))
    }
    return median(measuredSamples) / median(baselineSamples)
}

/// One round of several ratios against one yardstick: `baseline` and each of `measured` are
/// called in turn `repetitions` times; returns each one's median over the median of `baseline`.
func interleavedRatios(repetitions: Int, measured: [() -> Void], baseline: () -> Void) -> [Double] {
    var measuredSamples = Array(repeating: [Double](), count: measured.count), baselineSamples: [Double] = []
    for _ in 0..<repetitions {
        baselineSamples.append(secondsTaken(baseline))
        for (index, body) in measured.enumerated() { measuredSamples[index].append(secondsTaken(body)) }
    }
    return measuredSamples.map { median($0) / median(baselineSamples) }
}

/// Wall time of one call, in seconds, on the monotonic clock.
func secondsTaken(_ body: () -> Void) -> Double {
    var start = timespec(), end = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    body()
    clock_gettime(CLOCK_MONOTONIC, &end)
    return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
}

/// Minor page faults this process took while `body` ran (getrusage): a count the machine's
/// load does not change, so a fresh buffer per frame shows here however fast the machine is.
func pageFaults(_ body: () -> Void) -> Int {
    var before = rusage(), after = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &before)
    body()
    getrusage(Int32(RUSAGE_SELF.rawValue), &after)
    return after.ru_minflt - before.ru_minflt
}

/// `name: median`, then `name_range: min max`.
func report(_ name: String, _ spread: Spread) {
    report(name, spread.median)
    print("\(name)_range: \(rounded(spread.min)) \(rounded(spread.max))")
    if getenv("NOOK_BENCH_VERBOSE") != nil { print("  \(name) rounds:", spread.rounds.map(rounded)) }
}

func rounded(_ value: Double) -> Double {
    (value * 1000).rounded() / 1000
}

enum NookBench {
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
