import NookLogging
import NookSystem

/// The output nook.toml asks for (`[sound] output`): `none` (the default), `alsa`, `beeper`, or
/// `auto`, which looks at start as the display backends do.
public enum SoundOutputKind: String, CaseIterable, Sendable {
    case none, alsa, beeper, auto
}

/// Picks and builds the output, once, at start: behind `SoundOutput` from then on.
public enum SoundOutputChoice {
    /// The PCM an `alsa` output without a `device` plays on.
    public static let defaultPCM = "default"

    /// The output `kind` names, and the log line that says what was chosen and why.
    /// - Parameters:
    ///   - device: the ALSA PCM's name, or the beeper's event device (nil: found by capability).
    ///   - cards: the kernel's list of sound cards; `auto` takes ALSA where it lists one.
    ///   - inputDirectory: where `auto` and an unnamed beeper look for one.
    public static func make(_ kind: SoundOutputKind, device: String?, logger: Logger,
                            cards: String = "/proc/asound/cards", inputDirectory: String = "/dev/input") -> (output: any SoundOutput, note: String) {
        switch kind {
        case .none:
            return (SilentOutput(), "sound: no output ([sound] output = \"none\")")
        case .alsa:
            let pcm = device ?? defaultPCM
            return (ALSAOutput(device: pcm, logger: logger), "sound: ALSA output on \(pcm)")
        case .beeper:
            return (BeeperOutput(path: device, logger: logger), "sound: beeper output on \(device ?? "the first beeper under \(inputDirectory)")")
        case .auto:
            let listed = soundCards(cards)
            if !listed.isEmpty {
                let pcm = device ?? defaultPCM
                return (ALSAOutput(device: pcm, logger: logger),
                        "sound: auto chose ALSA on \(pcm): the kernel lists \(listed.joined(separator: ", "))")
            }
            let search = BeeperOutput.find(in: inputDirectory, opener: InputDevice.openForWriting)
            if let beeper = search.found.first {
                return (BeeperOutput(path: beeper, logger: logger), "sound: auto chose the beeper \(beeper): no sound card is listed in \(cards)")
            }
            let reason = "[sound] output = \"auto\" found no sound card in \(cards) and no beeper under \(inputDirectory)"
            return (SilentOutput(reason: reason), "sound: auto found no output: no sound card is listed in \(cards), and no beeper under \(inputDirectory)"
                + (search.passed.isEmpty ? "" : " (\(search.passed.joined(separator: "; ")))"))
        }
    }

    /// The cards `/proc/asound/cards` lists (`0 [Device ]: USB-Audio - USB Audio Device`), by
    /// their id; none where it says `--- no soundcards ---` or the kernel has no sound at all.
    static func soundCards(_ path: String) -> [String] {
        guard let bytes = try? readRegularFile(path, limit: 65_536) else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let number = fields.first, number.allSatisfy(\.isNumber), let open = line.firstIndex(of: "["),
                  let close = line[open...].firstIndex(of: "]") else { return nil }
            return line[line.index(after: open)..<close].trimmingCharacters(in: " ")
        }
    }
}

private extension Substring {
    func trimmingCharacters(in set: Character) -> String {
        String(drop { $0 == set }.reversed().drop { $0 == set }.reversed())
    }
}
