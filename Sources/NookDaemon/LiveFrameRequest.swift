import NookActivities
import NookProtocol

extension Daemon {
    /// `frame` (V1): the glass as a PNG, at once, or with `after` once a frame newer than that
    /// generation is on it (or after ``NookProtocol/frameWaitSeconds``, the frame then). Reading
    /// the glass is like `status`: whoever may connect may ask.
    /// Nil when the client went away while it waited: nothing is encoded for it.
    func liveFrame(after: Int?, for connection: ClientConnection) async throws(ProtocolError) -> FrameAnswer? {
        // Requests a client pipelined and then left (or was dropped for) cost nothing more.
        if connection.isClosed { return nil }
        let wait = Duration.seconds(NookProtocol.frameWaitSeconds)
        liveGlass.watch(for: wait + LiveGlass.watchAfterRequest)
        if let after, after == liveGlass.generation {
            // A number from this nookd: wait for the next frame. One larger than any frame
            // presented here came from an earlier nookd, and gets the frame on the glass now.
            let outcome = await liveGlass.waitForFrame(after: after, timeout: wait, clock: clock, uid: connection.peer.uid,
                                                       isGone: { connection.isClosed })
            switch outcome {
            case .tooMany:
                throw ProtocolError(.unavailable, field: "after",
                                    "\(LiveGlass.maximumWaiters) clients already wait for the next frame, the most nookd keeps; ask without after, or again later")
            case .tooManyForUser:
                throw ProtocolError(.unavailable, field: "after",
                                    "uid \(connection.peer.uid) already has \(LiveGlass.maximumWaitersPerUser) requests waiting for the next frame, its share of nookd's \(LiveGlass.maximumWaiters); ask without after, or once one is answered")
            case .newer, .timedOut:
                break
            }
            if connection.isClosed { return nil }
        }
        var captured = liveGlass.current
        if captured == nil {
            // Nobody watched a moment ago, so the frame on the glass was not copied.
            await screen.offerCurrentFrame()
            captured = liveGlass.current
        }
        guard let captured else {
            throw ProtocolError(.unavailable, liveGlass.generation == 0 ? "nothing has been presented yet" : "the glass changed while its frame was taken; ask again")
        }
        switch await livePNGs.png(of: captured) {
        case .success where connection.isClosed:
            return nil
        case .success(let encoded):
            guard encoded.png.count <= LiveFramePNGs.maximumBytes else {
                throw ProtocolError(.unavailable, "the frame's PNG is \(encoded.png.count) bytes, more than the \(LiveFramePNGs.maximumBytes) nookd sends a client")
            }
            return FrameAnswer(generation: encoded.generation, width: encoded.width, height: encoded.height, png: encoded.png, pngBase64: encoded.base64)
        case .failure(let error):
            throw ProtocolError(.internalError, "could not encode the frame: \(error)")
        }
    }
}
