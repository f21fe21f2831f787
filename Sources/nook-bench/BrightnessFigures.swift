#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookActivities
import NookProtocol
import NookSystem

extension DaemonFigures {
    /// `brightness_fade_steps` and `brightness_fade_ms` (Z2): a release nookd writing a fake
    /// backlight (`/sys/class/backlight/panel` in a scratch directory, max_brightness 255) goes
    /// from `idle` (20 %) to `active` (100 %) when a card comes on: the distinct levels written
    /// on the way (the target included, the start not) and the time from the enqueue's answer
    /// (the card's slide-in, which starts the fade, follows it at once on an empty queue) until
    /// the target is written. The file is read every half millisecond; the fade's steps are
    /// 20 ms apart, so none is missed. One fade a round; the panel fades back down between rounds.
    func brightnessFades(rounds count: Int = 5) throws -> (steps: Spread, milliseconds: Spread) {
        let root = scratch + "/backlight"
        try FileManager.default.createDirectory(atPath: root + "/panel", withIntermediateDirectories: true)
        let file = root + "/panel/brightness"
        guard FileManager.default.createFile(atPath: root + "/panel/max_brightness", contents: Data("255\n".utf8)),
              FileManager.default.createFile(atPath: file, contents: Data("0\n".utf8)) else { throw BenchError("cannot write \(root)") }
        let config = scratch + "/brightness.toml"
        _ = FileManager.default.createFile(atPath: config, contents: Data("""
            [brightness]
            backlight = "panel"
            sysfs_root = "\(root)"
            active = 100
            idle = 20
            """.utf8))
        let socket = scratch + "/brightness.sock"
        let pid = try startDaemon(socket: socket, extra: ["--config", config, "--journal", "none"])
        defer { stop(pid) }
        let client = try NookClient(path: socket)
        let (idle, active) = (51, 255)
        // A file, unlike a sysfs attribute, is not truncated by a write: the level is the first line.
        func level() -> Int? {
            guard let bytes = try? readRegularFile(file, limit: 64) else { return nil }
            return Int(String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self))
        }
        func waitFor(_ wanted: Int, seconds: Double) throws -> [(level: Int, at: ContinuousClock.Instant)] {
            var seen: [(level: Int, at: ContinuousClock.Instant)] = []
            let deadline = ContinuousClock.now + .nookSeconds(seconds)!
            while ContinuousClock.now < deadline {
                if let value = level(), value != seen.last?.level { seen.append((value, .now)) }
                if seen.last?.level == wanted { return seen }
                usleep(500)
            }
            throw BenchError("the backlight did not reach \(wanted) within \(seconds) s (levels seen: \(seen.map(\.level)))")
        }
        _ = try waitFor(idle, seconds: 5)
        var steps: [Double] = [], durations: [Double] = []
        for round in 0..<count {
            let card = NookActivity(title: "Fade \(round)", dwell: .milliseconds(800), transition: .milliseconds(100))
            do throws(ClientError) { _ = try client.request(Request(id: .number(1), operation: .enqueue(card, module: nil, wait: false))) } catch {
                throw BenchError("enqueue: \(error)")
            }
            let answered = ContinuousClock.now
            let fade = try waitFor(active, seconds: 5).filter { $0.at >= answered && $0.level != idle }
            steps.append(Double(Set(fade.map(\.level)).count))
            durations.append(((fade.last?.at ?? answered) - answered).nookSeconds * 1000)
            _ = try waitFor(idle, seconds: 10)
        }
        return (Spread(rounds: steps), Spread(rounds: durations))
    }
}

/// Z2's fade (`nook-bench brightness` runs only these).
func reportBrightnessFigures(_ figures: DaemonFigures) {
    do {
        let fades = try figures.brightnessFades()
        report("brightness_fade_steps", fades.steps)
        report("brightness_fade_ms", fades.milliseconds)
    } catch {
        print("brightness figures skipped: \(error)")
    }
}
