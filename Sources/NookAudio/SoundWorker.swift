import NookLogging
import NookSound
import NookSystem

/// What a sound device does on its output's thread: play one program to its end or until
/// `stop` says so. Made and used only on that thread.
protocol SoundDevice: AnyObject {
    /// The name status and log lines give it, once known.
    var deviceName: String? { get }
    /// Opens (or finds) the device, to report it at start; nothing is played.
    func probe() throws(AudioError)
    func play(_ program: SoundProgram, volume: Int, stop: SoundStop) throws(AudioError)
    /// Silences the device (a beeper left sounding), after a stop or a failure.
    func silence()
}

/// The thread an output plays on, and the one place its status changes. A newer `play` or a
/// `stop` moves `generation` on, which the playing program sees between chunks or tones.
final class SoundWorker: @unchecked Sendable {
    private let condition = ThreadCondition()
    private let logger: Logger
    private let output: String
    // Guarded by `condition`.
    private var pending: (program: SoundProgram, volume: Int)?
    private var probing = true
    private var generation = 0
    private var closed = false
    /// The thread has ended, the device silenced: what `close(within:)` waits for.
    private var ended = false
    private var current: SoundOutputStatus
    /// Told of each change of `current.state` (a sound began or ended, the device failed).
    private var observers: [@Sendable (SoundOutputStatus.State) -> Void] = []

    init(output: String, device: String?, logger: Logger) {
        (self.logger, self.output) = (logger, output)
        current = SoundOutputStatus(output: output, device: device, state: .unknown)
    }

    /// Starts the thread with `device`, which it alone uses from then on.
    func start(_ device: sending SoundDevice, threadName: String) {
        let box = DeviceBox(device)
        startThread(named: threadName) { [self] in run(box.device) }
    }

    /// - Returns: whether a sound was playing or waiting to, now cut off by `program`.
    @discardableResult
    func play(_ program: SoundProgram, volume: Int) -> Bool {
        condition.withLock {
            let busy = isBusy
            pending = (program, volume)
            generation += 1
            condition.broadcast()
            return busy
        }
    }

    /// - Returns: whether a sound was playing or waiting to, now cut off.
    @discardableResult
    func stop() -> Bool {
        condition.withLock {
            let busy = isBusy
            pending = nil
            generation += 1
            condition.broadcast()
            return busy
        }
    }

    /// Ends the thread: the sound playing is cut off and the device silenced. Waits up to
    /// `bound` for that (a device stuck in a call may never return), so a process exiting
    /// after it does not leave a beeper sounding.
    /// - Returns: whether the thread ended within `bound`.
    @discardableResult
    func close(within bound: Duration = .zero) -> Bool {
        let deadline = ThreadCondition.nowNanoseconds + UInt64(max(0, bound / .nanoseconds(1)))
        return condition.withLock {
            closed = true
            generation += 1
            condition.broadcast()
            while !ended && ThreadCondition.nowNanoseconds < deadline { condition.wait(untilNanoseconds: deadline) }
            return ended
        }
    }

    var status: SoundOutputStatus { condition.withLock { current } }

    /// `handler` is called on the output's thread after each change of its state, never with
    /// the output's lock held: a watcher learns when a sound begins and ends without polling.
    func observe(_ handler: @escaping @Sendable (SoundOutputStatus.State) -> Void) {
        condition.withLock { observers.append(handler) }
    }

    /// Tells the observers of a state other than the one they were last told; only the output's
    /// thread changes the state, so it alone calls this.
    private func tellObservers(since told: inout SoundOutputStatus.State) {
        let (state, handlers) = condition.withLock { (current.state, observers) }
        guard state != told else { return }
        told = state
        for handler in handlers { handler(state) }
    }

    /// A sound is playing, or handed over and waiting to. Guarded by `condition`.
    private var isBusy: Bool { pending != nil || current.state == .playing }

    private func run(_ device: SoundDevice) {
        var told = status.state
        while true {
            tellObservers(since: &told)
            var settled = false
            let job: (program: SoundProgram?, volume: Int, generation: Int)? = condition.withLock {
                // A sound that ended with the next handed over left the state `playing`; a stop
                // since took the next away: nothing plays, and the observers (Home Assistant's
                // siren) are told so before the wait, not at the next sound, which may never come.
                if pending == nil, !closed, current.state == .playing {
                    current.state = .idle
                    settled = true
                    return nil
                }
                while pending == nil && !probing && !closed { condition.wait() }
                if closed { return nil }
                if probing {
                    probing = false
                    return (nil, 0, generation)
                }
                defer { pending = nil }
                current.state = .playing
                return (pending!.program, pending!.volume, generation)
            }
            if settled { continue }
            tellObservers(since: &told)
            guard let job else {
                device.silence()
                condition.withLock {
                    ended = true
                    condition.broadcast()
                }
                return
            }
            do throws(AudioError) {
                if let program = job.program {
                    guard let ready = read(program) else { continue }
                    try device.play(ready, volume: job.volume, stop: SoundStop(worker: self, generation: job.generation))
                } else {
                    try device.probe()
                }
                succeeded(device, played: job.program != nil)
            } catch {
                device.silence()
                failed(device, error)
            }
        }
    }

    private func succeeded(_ device: SoundDevice, played: Bool) {
        let recovered: String? = condition.withLock {
            defer {
                current.device = device.deviceName ?? current.device
                current.state = pending == nil ? .idle : .playing
                current.problem = nil
                if played { current.played += 1 }
            }
            return current.problem
        }
        if recovered != nil {
            logger.notice("sound: \(output) output \(device.deviceName ?? "") plays again")
        } else if !played {
            logger.info("sound: \(output) output on \(device.deviceName ?? "?")")
        }
    }

    /// `program` with its sound file read (B2), here on the output's thread: the file as it is
    /// now, never blocking the screen or a queue. A file gone or broken since it was checked is a
    /// log line and a status count, and nothing plays; the output is unharmed.
    private func read(_ program: SoundProgram) -> SoundProgram? {
        do throws(SoundError) {
            return try Self.reading(program)
        } catch {
            logger.warning("sound: \(program.name) not played: \(error)")
            condition.withLock {
                current.unreadable += 1
                current.state = pending == nil ? .idle : .playing
            }
            return nil
        }
    }

    static func reading(_ program: SoundProgram) throws(SoundError) -> SoundProgram {
        switch program {
        case .file(let file): .samples(name: file.name, try file.load())
        case .repeated(let inner, let plays): .repeated(try reading(inner), plays)
        case .tones, .samples: program
        }
    }

    /// One log line for each new problem, not one for every sound the same problem refuses.
    private func failed(_ device: SoundDevice, _ error: AudioError) {
        let text = error.description
        let isNew: Bool = condition.withLock {
            defer {
                current.device = device.deviceName ?? current.device
                current.state = .unavailable
                current.problem = text
                current.failed += 1
            }
            return current.problem != text
        }
        if isNew { logger.warning("sound: \(output) output unavailable: \(text)\(error.retryNote)") }
    }

    /// Whether the job of `mine` was overtaken by a newer play, a stop or the output's close.
    fileprivate func overtaken(_ mine: Int) -> Bool {
        condition.withLock { generation != mine }
    }

    /// Waits until CLOCK_MONOTONIC `deadline` or until the job of `mine` is overtaken.
    /// - Returns: true when overtaken.
    fileprivate func wait(_ mine: Int, untilNanoseconds deadline: UInt64) -> Bool {
        condition.withLock {
            while generation == mine && ThreadCondition.nowNanoseconds < deadline {
                condition.wait(untilNanoseconds: deadline)
            }
            return generation != mine
        }
    }
}

/// Hands a device to the thread that will own it.
private final class DeviceBox: @unchecked Sendable {
    let device: SoundDevice
    init(_ device: sending SoundDevice) { self.device = device }
}

/// What a playing program asks its worker: whether to go on.
struct SoundStop {
    fileprivate let worker: SoundWorker
    fileprivate let generation: Int

    /// A newer sound, a stop or the output's close came.
    var requested: Bool { worker.overtaken(generation) }

    /// Waits `duration` (a tone's length) unless stopped first. - Returns: true when stopped.
    func wait(_ duration: Duration) -> Bool {
        let nanoseconds = UInt64(max(0, duration / .nanoseconds(1)))
        return worker.wait(generation, untilNanoseconds: ThreadCondition.nowNanoseconds + nanoseconds)
    }
}
