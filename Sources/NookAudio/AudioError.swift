import NookSystem

/// A failed sound output call: the call (`snd_pcm_open`, `open`, `write`), what it was made on
/// (the PCM's name, the beeper's path), the error code and its text, and what alsa-lib itself
/// said about it, which names the cause where the code alone does not (`Unknown PCM nosuch`).
/// `'snd_pcm_open' failed for nosuch: (2) No such file or directory (alsa-lib: Unknown PCM nosuch)`
public struct AudioError: Error, Hashable, Sendable, CustomStringConvertible {
    public var call: String
    public var device: String
    /// The errno value (alsa-lib returns them negated).
    public var code: Errno
    public var text: String
    /// What else names the cause: alsa-lib's own message, the devices a search passed over.
    public var detail: String?
    /// The PCM's state says its device is gone (unplugged, or its card unbound) whatever the code:
    /// a write under way when it went answers EBADFD (77), not ENODEV.
    public var disconnected = false

    public init(call: String, device: String, code: Errno, text: String, detail: String? = nil) {
        (self.call, self.device, self.code, self.text, self.detail) = (call, device, code, text, detail)
    }

    public var description: String {
        "'\(call)' failed for \(device): (\(code.rawValue)) \(text)" + (detail.map { " (\($0))" } ?? "")
            + (disconnected ? " (the device is disconnected)" : "")
    }

    /// The device is held by another program (EBUSY): it may be free for the next sound.
    public var isBusy: Bool { code == .resourceBusy }
    /// The device went away (ENODEV: a USB speaker unplugged; ENOENT or ENXIO: none there).
    public var isMissing: Bool { disconnected || [.noSuchFileOrDirectory, .noSuchDeviceOrAddress, .noSuchDevice].contains(code) }

    /// What the log line adds: that the output tries again, and why it may then work.
    var retryNote: String {
        if isBusy { return "; another program holds it, tried again with the next sound" }
        if isMissing { return "; tried again with the next sound (plugged in, or a device to find)" }
        return "; tried again with the next sound"
    }
}
