internal import CALSA
import Glibc
import NookSystem

/// The one owner of an open ALSA playback PCM (`snd_pcm_t`): closed once, when it goes.
/// Samples are signed 16-bit little-endian, interleaved, at the clip's own rate and channel
/// count; alsa-lib's plug layer converts where the device needs another (`default`,
/// `plughw:…`), and a `hw:` device that cannot take them is an error naming
/// `snd_pcm_set_params`. Every call is made on the thread that opened it.
final class ALSAPCM {
    private let pcm: OpaquePointer
    let name: String

    private init(pcm: OpaquePointer, name: String) {
        (self.pcm, self.name) = (pcm, name)
    }

    deinit { snd_pcm_close(pcm) }

    /// `snd_pcm_open` for playback, then `snd_pcm_set_params` for `rate` and `channels`, with
    /// about `latency` of buffer. Opened non-blocking, so a device another program holds is
    /// EBUSY at once rather than a wait for it; writes then block (on the output's own thread).
    static func open(_ name: String, rate: Int, channels: Int, latency: Duration = .milliseconds(100)) throws(AudioError) -> ALSAPCM {
        let messages = ALSAMessages.collect()
        var handle: OpaquePointer?
        try check("snd_pcm_open", name, messages) { snd_pcm_open(&handle, name, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK) }
        guard let handle else { throw AudioError(call: "snd_pcm_open", device: name, code: .invalidArgument, text: "no PCM returned") }
        let opened = ALSAPCM(pcm: handle, name: name)
        try check("snd_pcm_nonblock", name, messages) { snd_pcm_nonblock(handle, 0) }
        let microseconds = UInt32(latency / .microseconds(1))
        try check("snd_pcm_set_params", name, messages) {
            snd_pcm_set_params(handle, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED,
                               UInt32(channels), UInt32(rate), 1, microseconds)
        }
        return opened
    }

    /// `snd_pcm_writei` of every frame of `samples` (interleaved by `channels`), in chunks, with
    /// `shouldStop` asked between them. An underrun (EPIPE) or a suspend (ESTRPIPE) is recovered
    /// through `snd_pcm_recover` and writing goes on; any other failure (ENODEV: unplugged) throws.
    /// - Returns: false when `shouldStop` said so (the rest is dropped, not drained).
    func write(_ samples: [Int16], channels: Int, chunkFrames: Int = 1024, shouldStop: () -> Bool) throws(AudioError) -> Bool {
        let messages = ALSAMessages.collect()
        let frames = samples.count / max(channels, 1)
        var frame = 0
        while frame < frames {
            if shouldStop() {
                snd_pcm_drop(pcm)
                return false
            }
            let count = min(chunkFrames, frames - frame)
            let written = samples.withUnsafeBufferPointer { buffer in
                snd_pcm_writei(pcm, buffer.baseAddress! + frame * channels, snd_pcm_uframes_t(count))
            }
            if written >= 0 {
                frame += Int(written)
                continue
            }
            let code = Int32(written)
            switch Errno(rawValue: -code) {
            case .wouldBlock: continue
            case .brokenPipe, .streamSuspended:
                // An underrun (EPIPE) or a suspend (ESTRPIPE): prepared again, and writing goes on.
                try Self.check("snd_pcm_recover", name, messages) { snd_pcm_recover(pcm, code, 1) }
            default:
                var failure = Self.error("snd_pcm_writei", name, code, messages)
                failure.disconnected = snd_pcm_state(pcm) == SND_PCM_STATE_DISCONNECTED
                throw failure
            }
        }
        return true
    }

    /// `frames` of silence (the pause between two plays), written as ``write(_:channels:chunkFrames:shouldStop:)``
    /// writes samples, a chunk of zeros at a time. - Returns: false when `shouldStop` said so.
    func writeSilence(frames: Int, channels: Int, shouldStop: () -> Bool) throws(AudioError) -> Bool {
        let chunk = [Int16](repeating: 0, count: min(frames, 4096) * channels)
        var left = frames
        while left > 0 {
            let count = min(left, chunk.count / max(channels, 1))
            guard try write(count == chunk.count / max(channels, 1) ? chunk : Array(chunk[..<(count * channels)]), channels: channels,
                            shouldStop: shouldStop) else { return false }
            left -= count
        }
        return true
    }

    /// `snd_pcm_drain`: waits until every written frame has played.
    func drain() throws(AudioError) {
        let messages = ALSAMessages.collect()
        try Self.check("snd_pcm_drain", name, messages) { snd_pcm_drain(pcm) }
    }

    private static func check(_ call: String, _ name: String, _ messages: ALSAMessages, _ body: () -> Int32) throws(AudioError) {
        let result = body()
        if result < 0 { throw error(call, name, result, messages) }
    }

    private static func error(_ call: String, _ name: String, _ result: Int32, _ messages: ALSAMessages) -> AudioError {
        AudioError(call: call, device: name, code: Errno(rawValue: -result), text: String(cString: snd_strerror(result)), detail: messages.last.map { "alsa-lib: " + $0 })
    }
}

/// What alsa-lib says about a failure (`Unknown PCM nosuch`), which it would otherwise print on
/// standard error beside Nook's own line: taken by a handler local to the calling thread
/// (CALSA's shim, `snd_lib_error_set_local`), so that one failure is one log line, with
/// alsa-lib's words in it. Read on the thread that collected, as every call here is made.
struct ALSAMessages {
    /// Routes this thread's alsa-lib messages here, and forgets the last one.
    static func collect() -> ALSAMessages {
        nook_alsa_collect_messages()
        return ALSAMessages()
    }

    /// The last message alsa-lib gave on this thread since `collect()`.
    var last: String? { nook_alsa_last_message().map { String(cString: $0) } }
}
