import NookLogging
import NookSound
import NookSystem

/// Melodies on a piezo through the kernel's beeper input device (`pwm-beeper` from a
/// device-tree overlay, the PC speaker): each tone is an `EV_SND` / `SND_TONE` event with its
/// frequency in hertz, a rest or the end a tone of 0. A beeper that only has `SND_BELL`
/// (`gpio-beeper`, an active buzzer at its own pitch) is switched on for each tone instead, so
/// the melody keeps its rhythm. A piezo has no volume: any volume above 0 sounds, 0 is
/// silence. It cannot play a WAV file.
public final class BeeperOutput: SoundOutput {
    static let sound: UInt16 = 0x12          // EV_SND
    static let tone: UInt16 = 0x02           // SND_TONE
    static let bell: UInt16 = 0x01           // SND_BELL
    static let soundCount = 0x08             // SND_CNT
    static let synchronize: UInt16 = 0x00    // EV_SYN (code SYN_REPORT, 0)

    private let worker: SoundWorker

    /// - Parameter path: the beeper's event device, or nil to find it by its capabilities.
    public init(path: String?, logger: Logger) {
        worker = SoundWorker(output: "beeper", device: path, logger: logger)
        worker.start(BeeperDevice(configured: path, opener: InputDevice.openForWriting), threadName: "nook-beeper")
    }

    /// On a device already open (tests: a pipe whose other end reads the events).
    init(device: InputDevice, logger: Logger) {
        worker = SoundWorker(output: "beeper", device: device.path, logger: logger)
        worker.start(BeeperDevice(configured: device.path, opener: { _ in device }), threadName: "nook-beeper")
    }

    deinit { worker.close() }

    @discardableResult
    public func play(_ program: SoundProgram, volume: Int) -> Bool { worker.play(program, volume: volume) }
    @discardableResult
    public func stop() -> Bool { worker.stop() }
    public func close(within bound: Duration) -> Bool { worker.close(within: bound) }
    public var status: SoundOutputStatus { worker.status }
    public func observe(_ handler: @escaping @Sendable (SoundOutputStatus.State) -> Void) { worker.observe(handler) }
    public var hasVolume: Bool { false }

    public func cannotPlay(_ program: SoundProgram) -> String? {
        switch program.played.program {
        case .samples, .file: "the beeper plays tones, not a WAV file ('\(program.name)')"
        default: nil
        }
    }

    /// The events that sound `hertz` (0: silence) on a beeper with `code` (`SND_TONE`, or
    /// `SND_BELL`: on or off).
    static func events(hertz: Int, code: UInt16 = tone) -> [InputEvent] {
        [InputEvent(type: sound, code: code, value: code == tone ? Int32(clamping: hertz) : (hertz > 0 ? 1 : 0)),
         InputEvent(type: synchronize, code: 0, value: 0)]
    }

    /// The event devices under `directory` that can sound (`EVIOCGBIT` says `EV_SND` with
    /// `SND_TONE` or `SND_BELL`), tones first, and why each other one was passed over.
    static func find(in directory: String = "/dev/input",
                     opener: (String) throws(SystemCallError) -> InputDevice) -> (found: [String], passed: [String]) {
        let names = (try? directoryEntries(directory)) ?? []
        var found: [(path: String, code: UInt16)] = [], passed: [String] = []
        for name in names.filter({ $0.hasPrefix("event") }).sorted(by: eventOrder) {
            let path = directory + "/" + name
            do throws(SystemCallError) {
                let device = try opener(path)
                if let code = try soundCode(device) { found.append((path, code)) } else { passed.append("\(path): no EV_SND with SND_TONE or SND_BELL") }
            } catch {
                passed.append(error.description)
            }
        }
        return (found.filter { $0.code == tone }.map(\.path) + found.filter { $0.code == bell }.map(\.path), passed)
    }

    /// `SND_TONE` or `SND_BELL`, whichever `device` sounds (a tone where both), or nil.
    static func soundCode(_ device: InputDevice) throws(SystemCallError) -> UInt16? {
        let types = try device.bits(type: 0, count: 0x20)
        guard InputControl.has(types, Int(sound)) else { return nil }
        let codes = try device.bits(type: sound, count: soundCount)
        return [tone, bell].first { InputControl.has(codes, Int($0)) }
    }

    /// event2 before event10.
    private static func eventOrder(_ a: String, _ b: String) -> Bool {
        (Int(a.dropFirst(5)) ?? .max, a) < (Int(b.dropFirst(5)) ?? .max, b)
    }
}

/// The beeper of one `BeeperOutput`, used only on its thread: opened once and kept, reopened
/// (found again) after a failure such as its removal.
final class BeeperDevice: SoundDevice {
    private let configured: String?
    private let opener: (String) throws(SystemCallError) -> InputDevice
    private var device: InputDevice?
    /// `SND_TONE`, or `SND_BELL` for a beeper that has only that.
    private var code = BeeperOutput.tone
    /// A tone was written and no silence after it: what `silence()` ends.
    private var sounding = false

    init(configured: String?, opener: @escaping (String) throws(SystemCallError) -> InputDevice) {
        (self.configured, self.opener) = (configured, opener)
    }

    var deviceName: String? { device?.path ?? configured }

    func probe() throws(AudioError) { _ = try opened() }

    func play(_ program: SoundProgram, volume: Int, stop: SoundStop) throws(AudioError) {
        let (base, repeats) = program.played
        guard volume > 0, case .tones(let melody) = base else { return }
        let device = try opened()
        let plays = repeats?.count(forLength: .milliseconds(melody.milliseconds)) ?? 1
        playing: for play in 0..<plays {
            if play > 0, let pause = repeats?.pause, pause > .zero {
                try write(device, hertz: 0)
                if stop.wait(pause) { break playing }
            }
            for tone in melody.tones {
                try write(device, hertz: tone.isRest ? 0 : Int(tone.frequency.rounded()))
                if stop.wait(.milliseconds(tone.milliseconds)) { break playing }
            }
        }
        try write(device, hertz: 0)
    }

    func silence() {
        guard let device, sounding else { return }
        try? device.write(BeeperOutput.events(hertz: 0, code: code))
        sounding = false
    }

    private func write(_ device: InputDevice, hertz: Int) throws(AudioError) {
        do throws(SystemCallError) {
            try device.write(BeeperOutput.events(hertz: hertz, code: code))
            sounding = hertz > 0
        } catch {
            self.device = nil
            throw AudioError(error)
        }
    }

    private func opened() throws(AudioError) -> InputDevice {
        if let device { return device }
        let path: String
        if let configured {
            path = configured
        } else {
            let search = BeeperOutput.find(opener: opener)
            guard let first = search.found.first else {
                let why = search.passed.isEmpty ? "no event devices" : search.passed.joined(separator: "; ")
                throw AudioError(call: "EVIOCGBIT", device: "/dev/input", code: .noSuchDevice,
                                 text: "no input device sounds (EV_SND with SND_TONE or SND_BELL)", detail: "passed over: " + why)
            }
            path = first
        }
        do throws(SystemCallError) {
            let opened = try opener(path)
            // A configured node that answers no evdev ioctl (a stand-in) is written tones.
            code = (try? BeeperOutput.soundCode(opened)).flatMap { $0 } ?? BeeperOutput.tone
            device = opened
            return opened
        } catch {
            throw AudioError(error)
        }
    }
}

extension AudioError {
    /// A failed system call on a device, in the same words.
    init(_ error: SystemCallError) {
        self.init(call: error.call, device: error.subject ?? "", code: error.errno, text: error.errno.text)
    }
}
