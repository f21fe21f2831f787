#if canImport(Glibc)
import Glibc
#endif

import NookActivities
@testable import NookAudio
import NookLogging
import NookSound
import NookSystem
import Testing

/// B4: the output's state is what Home Assistant's siren shows (nook-mqtt's state topic reads it
/// on each `watch` line `sound`), so it must never say `playing` with nothing to play.
@Suite("B4 a sound output's state")
struct SoundWorkerStateTests {
    /// A device that fails its probe (so a sound played after it logs "plays again" outside the
    /// worker's lock) and whose play hands the worker the next sound before it ends: the moment
    /// between one sound's end and the next one's start, where a stop can come from another thread.
    final class HandingOnDevice: SoundDevice, @unchecked Sendable {
        let next: @Sendable () -> Void
        init(next: @escaping @Sendable () -> Void) { self.next = next }
        var deviceName: String? { "handing-on" }
        func probe() throws(AudioError) {
            throw AudioError(call: "open", device: "handing-on", code: .noSuchDevice, text: "not there yet")
        }
        func play(_ program: SoundProgram, volume: Int, stop: SoundStop) { if program.name == "first" { next() } }
        func silence() {}
    }

    /// Calls `action` on the line that says the output plays again, on the output's thread.
    struct HookedLines: LogHandler {
        let action: @Sendable () -> Void
        var logLevel: Logger.Level = .info
        func log(event: LogEvent) { if "\(event.message)".contains("plays again") { action() } }
    }

    @Test func b4_aStopBetweenOneSoundsEndAndTheNextsStartLeavesTheOutputIdleAndSaysSo() throws {
        let worker = Locked<SoundWorker?>(nil)
        let told = Locked<[SoundOutputStatus.State]>([])
        // The stop lands just after the first sound ended with the second handed over, before the
        // output's thread takes the second: it cuts off the sound waiting, so nothing plays.
        let hook = HookedLines { worker.withLock { $0 }?.stop() }
        let made = SoundWorker(output: "beeper", device: "handing-on", logger: Logger(label: "sound-test", factory: { _ in hook }))
        worker.withLock { $0 = made }
        made.observe { state in told.withLock { $0.append(state) } }
        made.start(HandingOnDevice { made.play(Self.melody("second"), volume: 100) }, threadName: "nook-test-sound")
        try awaitState(made, .unavailable)
        made.play(Self.melody("first"), volume: 100)
        // A hang guard: it ends as the state does and the observers are told it (on the output's
        // thread, just after the state changed: under qemu-user the test once read between them).
        let bound = ThreadCondition.nowNanoseconds + 30_000_000_000
        while (made.status.state != .idle || told.withLock({ $0.last }) != .idle) && ThreadCondition.nowNanoseconds < bound { usleep(1000) }
        #expect(made.status.state == .idle, "nothing plays after the stop: \(made.status.state)")
        #expect(told.withLock { $0.last } == .idle, "the observers were told: \(told.withLock { $0 })")
        #expect(!made.stop(), "a stop then finds nothing playing")
        made.close(within: .seconds(2))
    }

    static func melody(_ name: String) -> SoundProgram { .tones(Melody(name: name, tones: [Tone(frequency: 2000, milliseconds: 1)])) }

    func awaitState(_ worker: SoundWorker, _ state: SoundOutputStatus.State) throws {
        let bound = ThreadCondition.nowNanoseconds + 30_000_000_000
        while worker.status.state != state && ThreadCondition.nowNanoseconds < bound { usleep(1000) }
        try #require(worker.status.state == state, "the output is \(state)")
    }
}
