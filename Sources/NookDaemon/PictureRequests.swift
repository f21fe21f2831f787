import NookActivities
import NookDisplay
import NookProtocol
import NookRender

extension Daemon {
    /// The glass as a picture.
    static let pictureHandlers: [OperationHandler] = [
        OperationHandler(\.reading.snapshot) { daemon, _, reply in
            try await daemon.snapshotRequest(reply)
        },
        OperationHandler(\.reading.frame) { daemon, after, reply in
            try await daemon.frameRequest(after: after, reply)
        },
    ]

    /// `snapshot`: the last frame presented, as a PNG.
    func snapshotRequest(_ reply: RequestReply) async throws(ProtocolError) {
        guard let frame = await screen.lastPresentedFrame else {
            throw ProtocolError(.unavailable, "nothing has been presented yet")
        }
        do {
            let png = try PNG.encode(frame)
            reply.answer(SnapshotAnswer(width: frame.width, height: frame.height, png: png))
        } catch {
            throw ProtocolError(.internalError, "could not encode the snapshot: \(error)")
        }
    }

    /// `frame` (V1): the glass as a PNG with its generation.
    func frameRequest(after: Int?, _ reply: RequestReply) async throws(ProtocolError) {
        let connection = reply.connection
        if let frame = try await liveFrame(after: after, for: connection) { reply.answer(frame) }
    }
}
