import NookActivities
import NookDisplay
import NookPNG
import NookProtocol
import NookSystem

/// The live view's PNGs (V1): each generation encoded once, on a thread of its own (not nookd's
/// task pool, where the screen draws, nor the screen's executor), however many clients ask.
/// Only the newest frame asked for is encoded: a client that asked for an older one while an
/// encoding ran gets the newer one.
final class LiveFramePNGs: Sendable {
    struct Encoded: Sendable {
        var generation: Int
        var width: Int
        var height: Int
        var png: [UInt8]
        var base64: String
    }

    /// Largest PNG handed out: its Base64 line stays under the 4 MiB a client may leave unread
    /// before nookd holds its next request back.
    static let maximumBytes = 2 << 20

    private struct Waiter {
        var generation: Int
        var continuation: CheckedContinuation<Result<Encoded, PNGError>, Never>
    }

    private struct State {
        var cached: Encoded?
        /// The frame to encode next; nil when none waits.
        var job: LiveGlass.Captured?
        var encoding = false
        var waiters: [Waiter] = []
        var encodedCount = 0
    }

    private let state = Locked(State())
    private let worker: SerialWorker
    /// What a viewer sees of a frame: itself on a panel, the round-LED picture on LEDs.
    private let picture: @Sendable (Frame) -> Frame

    init(picture: @escaping @Sendable (Frame) -> Frame = { $0 }) {
        self.picture = picture
        worker = SerialWorker(name: "nookd.liveview")
    }

    /// How many PNGs were encoded: once per generation asked for, whatever the clients.
    var encodings: Int { state.withLock { $0.encodedCount } }

    /// The PNG of `captured` (or of a newer frame, if one was asked for meanwhile).
    func png(of captured: LiveGlass.Captured) async -> Result<Encoded, PNGError> {
        await withCheckedContinuation { continuation in
            let (ready, start) = state.withLock { state -> (Encoded?, Bool) in
                if let cached = state.cached, cached.generation >= captured.generation { return (cached, false) }
                state.waiters.append(Waiter(generation: captured.generation, continuation: continuation))
                if captured.generation > (state.job?.generation ?? -1) { state.job = captured }
                guard !state.encoding else { return (nil, false) }
                state.encoding = true
                return (nil, true)
            }
            if let ready { continuation.resume(returning: .success(ready)) }
            if start { worker.async { [self] in drain() } }
        }
    }

    /// On the worker's thread: encodes the newest job until none is left.
    private func drain() {
        while let job = state.withLock({ state -> LiveGlass.Captured? in
            defer { state.job = nil }
            if state.job == nil { state.encoding = false }
            return state.job
        }) {
            let result: Result<Encoded, PNGError>
            do throws(PNGError) {
                let image = picture(job.frame)
                let png = try PNGEncoder.encode(image)
                result = .success(Encoded(generation: job.generation, width: image.width, height: image.height, png: png, base64: Base64.encode(png)))
            } catch {
                result = .failure(error)
            }
            let done = state.withLock { state -> [Waiter] in
                state.encodedCount += 1
                if case .success(let encoded) = result { state.cached = encoded }
                let done = state.waiters.filter { $0.generation <= job.generation }
                state.waiters.removeAll { $0.generation <= job.generation }
                return done
            }
            for waiter in done { waiter.continuation.resume(returning: result) }
        }
    }
}
