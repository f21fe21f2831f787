import NookAudio
import NookProtocol
import NookSound

extension Daemon {
    /// The sounds with no card (B4), owned by the sound service: neither touches a queue or the glass.
    static let soundHandlers: [OperationHandler] = [
        OperationHandler(\.sound.soundPlay) { daemon, request, reply in
            reply.answer(try await daemon.parts.sound.playNow(request, from: reply.connection.peer.uid))
        },
        OperationHandler(\.sound.soundStop) { daemon, _, reply in
            reply.answer(SoundStopAnswer(stopped: daemon.parts.sound.stopPlaying(by: reply.connection.peer.uid)))
        },
        OperationHandler(\.sound.soundVolume) { daemon, setting, reply in
            reply.answer(daemon.parts.sound.volume(setting))
        },
    ]
}

extension Service.Sound {
    /// `sound-volume` (B3): the volume every sound starts from (a card's, a sound with no card),
    /// set until given back or nookd restarts; quiet hours and an empty room still lower it. A
    /// sound playing keeps the volume it started at. What the volume will not do is said.
    func volume(_ setting: SoundVolumeSetting) -> SoundVolumeAnswer {
        // The volume and whether it is set change together, under the one lock (then `rules`').
        let (configured, overridden, volume) = configuredVolume.withLock { state in
            switch setting {
            case .read: break
            case .set(let volume):
                state.overridden = true
                rules.withLock { $0.volume = volume }
            case .configured:
                state.overridden = false
                let configured = state.volume
                rules.withLock { $0.volume = configured }
            }
            return (state.volume, state.overridden, rules.withLock { $0.volume })
        }
        switch setting {
        case .read: break
        case .set(let volume): logger.info("sound: the volume set to \(volume) (sound.volume is \(configured))")
        case .configured: logger.info("sound: the volume back to sound.volume, \(configured)")
        }
        let output: any SoundOutput = current.withLock { $0 } ?? SilentOutput()
        let now = output.status
        var warnings: [String] = []
        if setting != .read {
            if now.output == "none" {
                warnings.append("volume: no sound output is configured ([sound] output in nook.toml): nothing plays at it")
            } else if !output.hasVolume {
                warnings.append("volume: the \(now.output) output has no volume: it sounds at full loudness, or not at all at 0")
            }
        }
        return SoundVolumeAnswer(volume: volume, configured: configured, isSet: overridden, output: now.output, warnings: warnings)
    }

    /// Where the volume comes from, as a refusal or warning names it.
    var volumeSource: String {
        configuredVolume.withLock { $0.overridden } ? "the volume set (nookctl sound volume)" : "sound.volume in nook.toml"
    }

    /// Why no sound plays at volume 0.
    var volumeZero: String {
        configuredVolume.withLock { $0.overridden } ? "the volume is set to 0 (nookctl sound volume)" : "sound.volume is 0 in nook.toml"
    }

    /// `sound-play`: the sound read (a name Nook has no chime for, or an RTTTL string's fault at
    /// its character, refuses the request naming `sound`), then handed to the output at what the
    /// room allows, or not, and the answer says which and why. A newer sound cuts off the one
    /// playing, as a card's does. No history entry keeps it (it has no card): the log line does.
    func playNow(_ request: SoundRequest, from uid: UInt32) async throws(ProtocolError) -> SoundPlayAnswer {
        let melody: Melody
        do throws(SoundError) { melody = try SoundText.melody(request.sound) } catch { throw ProtocolError(.invalid, field: "sound", error.message) }
        // Kept before it plays, so a redelivery racing the first request is the one told.
        if let id = request.playID, !playIDs.withLock({ $0.insert(id, uid: uid, now: repeats.clock.now) }) {
            logger.info("sound: \(melody.name) \(Owner.noCard(uid: uid).logged) not played: its playID \(id) was asked for before")
            return SoundPlayAnswer(sound: melody.name, played: false, volume: nil,
                                   outcome: "asked for before (playID \(id)): a request is carried out once", again: true)
        }
        let output: any SoundOutput = current.withLock { $0 } ?? SilentOutput()
        let configured = rules.withLock { $0.volume }
        let refusal: String? = if let reason = output.cannotPlay(.tones(melody)) {
            reason
        } else if configured == 0 {
            volumeZero
        } else if request.volume == 0 {
            // Asked for silence: no room's doing, so not counted as the room's.
            "volume 0 asked"
        } else {
            nil
        }
        if let refusal {
            logger.info("sound: \(melody.name) \(Owner.noCard(uid: uid).logged) not played: \(refusal)")
            return SoundPlayAnswer(sound: melody.name, played: false, volume: nil, outcome: refusal)
        }
        // Read before the sound is handed over, which sets the output playing.
        let before = output.status
        let verdict = await play(.tones(melody), for: .noCard(uid: uid), priority: request.priority, asked: request.volume, on: output)
        var warnings: [String] = []
        if let asked = request.volume, asked > configured {
            warnings.append("volume \(asked) asked: played no louder than \(volumeSource), \(configured)")
        }
        if request.volume != nil, !output.hasVolume {
            warnings.append("the \(before.output) output has no volume: it sounds at full loudness")
        }
        // Handed over, it is tried again; but a device that failed the last time likely fails
        // this one too, and the sender hears nothing: said, not left to the log.
        if before.state == .unavailable { warnings.append(Self.unavailable(before)) }
        switch verdict {
        case .play(let volume, _): return SoundPlayAnswer(sound: melody.name, played: true, volume: volume, outcome: "\(verdict)", warnings: warnings)
        case .notLowered: return SoundPlayAnswer(sound: melody.name, played: true, volume: 100, outcome: "\(verdict)", warnings: warnings)
        case .silenced(let reason), .cutOff(let reason): return SoundPlayAnswer(sound: melody.name, played: false, volume: nil, outcome: "silenced (\(reason))")
        }
    }

    /// The warning for a sound handed to an output that failed the last time it was tried.
    static func unavailable(_ status: SoundOutputStatus) -> String {
        let device = status.device.map { " on \($0)" } ?? ""
        return "the \(status.output) output\(device) failed the last time it was tried (\(status.problem ?? "unavailable")): "
            + "this sound likely did not play either; nookctl status says whether it did"
    }
}
