#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookActivities
import NookProtocol
import NookSystem

/// B6 (`nook-bench sound`): a release nookd on the mock display whose sound output is the
/// kernel's beeper interface written into a FIFO this process reads, so a tone is timed as the
/// beeper would get it (an `input_event`, no device between). The timer starts as the request
/// is written; the tone is the first event read.
/// - `sound_enqueue_to_first_tone_ms_p99`: a card with its own sound, enqueued on an empty queue,
///   to its first tone (the card's sound plays as it slides in), rounds of 50 cards, each
///   dismissed once its sound has ended;
/// - `sound_play_to_first_tone_ms_p99`: `sound-play` (no card) to its first tone, rounds of 50;
/// - `sound_idle_wakes_per_min` and `sound_idle_wakes_per_min_without`: the same nookd idle
///   with the beeper configured and with no sound, a minute each, alternating, in rounds: a sound
///   device must cost nothing while silent (`sound_idle_wakes_vs_without` is their ratio).
struct SoundFigures {
    let daemon: DaemonFigures
    /// A tone of 75 ms, and the silence after it.
    static let melody = "t:d=16,o=6,b=200:c"

    func run() async throws {
        try daemon.prepare()
        let beeper = daemon.scratch + "/beeper"
        try System.makeFIFO(beeper, mode: 0o600)
        // Opened first, so nookd's non-blocking open of the beeper finds a reader.
        let reader = try FileDescriptor.open(beeper, O_RDONLY | O_NONBLOCK)
        let withSound = daemon.scratch + "/sound.toml"
        try "[sound]\noutput = \"beeper\"\ndevice = \"\(beeper)\"\n".write(toFile: withSound, atomically: true, encoding: .utf8)
        let socket = daemon.scratch + "/sound.sock"

        let pid = try daemon.startDaemon(socket: socket, extra: ["--config", withSound, "--journal", "none"])
        let client = try NookClient(path: socket)
        let tones = ToneReader(reader: reader)
        report("sound_enqueue_to_first_tone_ms_p99", try await rounds(3) {
            try p99(of: 50, through: client, tones: tones) { index in
                var card = NookActivity(title: "Doorbell \(index)", dwell: .seconds(60))
                card.sound = Self.melody
                card.transition = .milliseconds(20)
                return (.enqueue(card, module: nil, wait: false), { _ = try client.request(Request(id: .string("dismiss"), operation: .dismiss(nil))) })
            }
        })
        report("sound_play_to_first_tone_ms_p99", try await rounds(3) {
            try p99(of: 50, through: client, tones: tones) { _ in (.soundPlay(SoundRequest(sound: Self.melody)), {}) }
        })
        daemon.stop(pid)

        // Idle, each nookd once its start has settled (its spare frames let go, about 10 s in:
        // a wake of its own); a minute of each in turn.
        let without = daemon.scratch + "/none.toml"
        try "[sound]\noutput = \"none\"\n".write(toFile: without, atomically: true, encoding: .utf8)
        var (sounding, silent): ([Double], [Double]) = ([], [])
        for _ in 0..<2 {
            for (config, name) in [(withSound, "with"), (without, "without")] {
                let idle = try daemon.startDaemon(socket: socket, extra: ["--config", config, "--journal", "none"])
                usleep(15_000_000)
                let wakes = daemon.idleWakes(pid: idle, minutes: 1).perMinute.median
                if name == "with" { sounding.append(wakes) } else { silent.append(wakes) }
                daemon.stop(idle)
            }
        }
        report("sound_idle_wakes_per_min", Spread(rounds: sounding))
        report("sound_idle_wakes_per_min_without", Spread(rounds: silent))
        report("sound_idle_wakes_vs_without", Spread(rounds: zip(sounding, silent).map { $1 > 0 ? $0 / $1 : $0 + 1 }))
        withExtendedLifetime(reader) {}
    }

    /// `count` requests made by `make` (given its index: the operation, and what to do once its
    /// sound has ended), each timed from its write to the first tone read; their p99.
    private func p99(of count: Int, through client: NookClient, tones: ToneReader,
                     _ make: (Int) -> (NookOperation, () throws -> Void)) throws -> Double {
        var samples: [Double] = []
        // One before the samples: the first sound opens the beeper.
        for index in -1..<count {
            let (operation, after) = make(index)
            let start = ContinuousClock.now
            _ = try client.request(Request(id: .number(Double(index)), operation: operation))
            let tone = try tones.next { $0 != 0 }
            if index >= 0 { samples.append((tone - start).nookSeconds * 1000) }
            _ = try tones.next { $0 == 0 }
            try after()
            // The card gone, its slide out ended: the next one comes to an empty glass.
            usleep(150_000)
        }
        samples.sort()
        return samples[Int(Double(samples.count - 1) * 0.99)]
    }
}

/// The beeper's tones from the FIFO nookd writes into, as they come.
final class ToneReader {
    private let reader: FileDescriptor
    private var pending: [UInt8] = []
    private var buffer = [UInt8](repeating: 0, count: 4096)
    private var decoded: [(value: Int32, at: ContinuousClock.Instant)] = []

    init(reader: FileDescriptor) { self.reader = reader }

    /// When the first tone `matching` came (read as soon as the FIFO is readable); the tones
    /// before it are dropped. Throws after 10 s with none.
    func next(_ matching: (Int32) -> Bool) throws -> ContinuousClock.Instant {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            if let index = decoded.firstIndex(where: { matching($0.value) }) {
                let at = decoded[index].at
                decoded.removeFirst(index + 1)
                return at
            }
            guard ContinuousClock.now < deadline else { throw BenchError("no tone from nookd's beeper within 10 s") }
            var entry = pollfd(fd: reader.rawValue, events: Int16(POLLIN), revents: 0)
            guard try System.poll(&entry, timeoutMilliseconds: 1000) == 1 else { continue }
            let at = ContinuousClock.now
            guard let count = try buffer.withUnsafeMutableBytes({ try reader.readIfReady(into: $0) }), count > 0 else { continue }
            pending += buffer[..<count]
            let whole = pending.count / InputEvent.size * InputEvent.size
            decoded += pending[..<whole].withUnsafeBytes { InputEvent.decode($0) }.filter { $0.type == 0x12 }.map { ($0.value, at) }
            pending.removeFirst(whole)
        }
    }
}
