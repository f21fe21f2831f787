import NookActivities
@testable import NookAudio
import NookSound
import NookSystem
import Testing

/// B1 at nookd's exit: closing an output waits for its thread to cut off the sound and silence
/// the device, so a process that exits right after never leaves a beeper sounding.
@Suite("B1 closing a sound output")
struct SoundWorkerCloseTests {
    /// A device whose play, once stopped, ends only when a second thread lets it: the silence
    /// then comes a few thread hand-overs after the stop, never before `close` could return.
    final class GatedDevice: SoundDevice, @unchecked Sendable {
        let state = ThreadCondition()
        // Guarded by `state`.
        var stopSeen = false, released = false, silencedAt: Int?, steps = 0

        var deviceName: String? { "gated" }
        func probe() {}
        func play(_ program: SoundProgram, volume: Int, stop: SoundStop) {
            state.withLock { steps += 1; state.broadcast() }
            // Ten minutes of tone: only the close ends it.
            _ = stop.wait(.seconds(600))
            state.withLock {
                stopSeen = true
                state.broadcast()
                while !released { state.wait() }
            }
        }
        func silence() { state.withLock { steps += 1; silencedAt = steps } }

        /// On a thread of its own: lets the stopped play end once it has seen the stop.
        func releaseOnceStopped() {
            startThread(named: "gate") { [self] in
                state.withLock {
                    while !stopSeen { state.wait() }
                    released = true
                    state.broadcast()
                }
            }
        }
    }

    @Test func b1_closeReturnsOnlyOnceTheDeviceIsSilenced() {
        let device = GatedDevice()
        let worker = SoundWorker(output: "beeper", device: "gated", logger: KeptLines().logger)
        worker.start(device, threadName: "nook-test-sound")
        worker.play(.tones(Melody(name: "long", tones: [Tone(frequency: 2000, milliseconds: 600_000)])), volume: 100)
        device.state.withLock { while device.steps == 0 { device.state.wait() } }
        device.releaseOnceStopped()
        #expect(worker.close(within: .seconds(600)), "the thread ended within the bound")
        #expect(device.state.withLock { device.silencedAt } == 2, "silenced after the play, before close returned")
    }
}
