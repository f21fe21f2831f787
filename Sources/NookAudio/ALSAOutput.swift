import NookLogging
import NookSound

/// Sounds to an ALSA PCM (a USB speaker, an I2S amplifier such as a MAX98357A, HDMI audio):
/// melodies synthesised, WAV files' samples as they are, at the volume given. The PCM is
/// opened for each sound and closed after it, so another program may use the device between
/// sounds, and a speaker unplugged and plugged back plays again with the next sound.
public final class ALSAOutput: SoundOutput {
    /// The rate melodies are synthesised at: one every I2S amplifier and USB speaker takes.
    public static let melodyRate = 48_000

    private let worker: SoundWorker

    /// - Parameter device: the PCM's name (`default`, `plughw:CARD=Device`, `hw:0,0`).
    public init(device: String, logger: Logger) {
        worker = SoundWorker(output: "alsa", device: device, logger: logger)
        worker.start(ALSADevice(name: device), threadName: "nook-alsa")
    }

    deinit { worker.close() }

    @discardableResult
    public func play(_ program: SoundProgram, volume: Int) -> Bool { worker.play(program, volume: volume) }
    @discardableResult
    public func stop() -> Bool { worker.stop() }
    public func close(within bound: Duration) -> Bool { worker.close(within: bound) }
    public var status: SoundOutputStatus { worker.status }
    public func observe(_ handler: @escaping @Sendable (SoundOutputStatus.State) -> Void) { worker.observe(handler) }
    public func cannotPlay(_ program: SoundProgram) -> String? { nil }

    /// The samples `program` is played as, at `volume` (0–100).
    public static func clip(for program: SoundProgram, volume: Int) -> PCMClip {
        switch program {
        case .tones(let melody):
            return Synthesizer.render(melody, sampleRate: melodyRate, volume: volume)
        case .samples(_, let clip):
            return scaled(clip, volume: volume)
        case .repeated(let program, _):
            return clip(for: program, volume: volume)
        case .file:
            // Read by the worker before a device plays it (``SoundWorker``): none to play here.
            return PCMClip(sampleRate: melodyRate, channels: 1, samples: [])
        }
    }

    /// `clip` with every sample scaled by `volume` percent.
    static func scaled(_ clip: PCMClip, volume: Int) -> PCMClip {
        let volume = min(max(volume, 0), 100)
        if volume == 100 { return clip }
        var out = clip
        out.samples = clip.samples.map { Int16(Int($0) * volume / 100) }
        return out
    }
}

/// The PCM of one `ALSAOutput`, used only on its thread.
final class ALSADevice: SoundDevice {
    let name: String
    init(name: String) { self.name = name }

    var deviceName: String? { name }

    func probe() throws(AudioError) {
        _ = try ALSAPCM.open(name, rate: ALSAOutput.melodyRate, channels: 1)
    }

    /// The clip once, or as many times as its repeat says with the pause's silence between:
    /// one PCM opened for them all, so the plays follow one another on the device's clock.
    func play(_ program: SoundProgram, volume: Int, stop: SoundStop) throws(AudioError) {
        guard volume > 0 else { return }
        let repeats = program.played.repeat
        let clip = ALSAOutput.clip(for: program, volume: volume)
        guard clip.frameCount > 0 else { return }
        let plays = repeats?.count(forLength: clip.length) ?? 1
        let pause = repeats.map { Int($0.pause / .nanoseconds(1)) * clip.sampleRate / 1_000_000_000 } ?? 0
        let pcm = try ALSAPCM.open(name, rate: clip.sampleRate, channels: clip.channels)
        for play in 0..<plays {
            if play > 0, pause > 0 {
                guard try pcm.writeSilence(frames: pause, channels: clip.channels, shouldStop: { stop.requested }) else { return }
            }
            guard try pcm.write(clip.samples, channels: clip.channels, shouldStop: { stop.requested }) else { return }
        }
        try pcm.drain()
    }

    func silence() {}
}
