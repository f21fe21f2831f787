import NookProtocol

/// Viewers waiting for the glass to change share one `frame` call waiting in nookd: however
/// many watch, nookd holds one wait and encodes one PNG per change, and nook-http's link to
/// nookd carries one waiting call, not one per viewer. A viewer behind the newest frame is
/// answered from it at once. Runs on the server's loop thread, like every handler.
final class GlassWaiters {
    private struct Waiter {
        var after: Int
        var viewer: HTTPClient
        var isOpen: () -> Bool
        var done: (Result<FrameAnswer, HTTPAPIError>) -> Void
    }

    /// Viewers waiting at once; one more is told to come back (503) rather than queued.
    let maximumWaiters: Int
    /// Of those, at most this many from one address, and as many under one token: one client
    /// that opens viewers and never reads them cannot take every place.
    let maximumPerClient: Int
    private var newest: FrameAnswer?
    private var waiters: [Waiter] = []
    /// The generation the call in flight waits past; nil when none is in flight.
    private var asking: Int?

    init(maximumWaiters: Int = 256, maximumPerClient: Int = 64) {
        (self.maximumWaiters, self.maximumPerClient) = (maximumWaiters, maximumPerClient)
    }

    var waiting: Int { waiters.count }

    /// `done` gets the first frame newer than `after`, or, when nookd's bounded wait runs out
    /// with the glass unchanged, the frame on the glass (a generation not newer than `after`).
    func next(after: Int, viewer: HTTPClient, nookd: any NookdCalls, isOpen: @escaping () -> Bool,
              done: @escaping (Result<FrameAnswer, HTTPAPIError>) -> Void) {
        // The newest frame is the glass only while a call waits past it.
        if let newest, asking == newest.generation, newest.generation > after {
            done(.success(newest))
            return
        }
        // A number past the one the call in flight waits past is past the glass (one kept from
        // before nookd restarted): nookd answers it at once with the glass now, and so does this,
        // rather than holding it until the glass next changes.
        if let asking, after > asking {
            now(nookd: nookd) { [self] result in
                if case .success(let frame) = result, frame.generation == after {
                    // The glass reached that number meanwhile: a viewer up to date, who waits.
                    join(after: after, viewer: viewer, nookd: nookd, isOpen: isOpen, done: done)
                } else {
                    done(result)
                }
            }
            return
        }
        join(after: after, viewer: viewer, nookd: nookd, isOpen: isOpen, done: done)
    }

    private func join(after: Int, viewer: HTTPClient, nookd: any NookdCalls, isOpen: @escaping () -> Bool,
                      done: @escaping (Result<FrameAnswer, HTTPAPIError>) -> Void) {
        if let refusal = refusal(for: viewer) {
            done(.failure(refusal))
            return
        }
        waiters.append(Waiter(after: after, viewer: viewer, isOpen: isOpen, done: done))
        ask(nookd)
    }

    /// Why `viewer` may not wait now (503 `too_many_viewers`), or nil when it has a place: the
    /// table is full, or so is its address's or its token's share.
    func refusal(for viewer: HTTPClient) -> HTTPAPIError? {
        func full() -> String? {
            if waiters.count >= maximumWaiters { return "\(maximumWaiters) viewers already wait for the glass to change" }
            if waiters.count(where: { $0.viewer.address == viewer.address }) >= maximumPerClient {
                return "\(maximumPerClient) viewers from this address already wait for the glass to change (one address's share)"
            }
            if let token = viewer.token, waiters.count(where: { $0.viewer.token == token }) >= maximumPerClient {
                return "\(maximumPerClient) viewers with this token already wait for the glass to change (one token's share)"
            }
            return nil
        }
        if full() != nil { dropGone() }
        guard let why = full() else { return nil }
        return HTTPAPIError(status: 503, code: "too_many_viewers", field: "after", message: "\(why); try again shortly",
                            headers: [("Retry-After", "1")])
    }

    /// Viewers who went away while they waited: each is told, so that its stream finishes.
    private func dropGone() {
        let gone = waiters.filter { !$0.isOpen() }
        guard !gone.isEmpty else { return }
        waiters.removeAll { !$0.isOpen() }
        for waiter in gone { waiter.done(.failure(HTTPAPIError(status: 499, code: "viewer_gone", message: "the viewer went away"))) }
    }

    /// Viewers asking for the glass as it is now, sharing the one call in flight.
    private var askingNow: [(Result<FrameAnswer, HTTPAPIError>) -> Void] = []

    /// The frame on the glass now. Viewers asking at the same moment share one call to nookd,
    /// so a burst of them costs nookd one answer, not a PNG each on the shared link.
    func now(nookd: any NookdCalls, done: @escaping (Result<FrameAnswer, HTTPAPIError>) -> Void) {
        guard askingNow.count < maximumWaiters else {
            done(.failure(HTTPAPIError(status: 503, code: "too_many_viewers",
                                       message: "\(maximumWaiters) viewers already wait for the glass; try again shortly", headers: [("Retry-After", "1")])))
            return
        }
        askingNow.append(done)
        guard askingNow.count == 1 else { return }
        LiveViewRoutes.frame(after: nil, nookd) { [self] result in
            let answered = askingNow
            askingNow = []
            for done in answered { done(result) }
        }
    }

    private func ask(_ nookd: any NookdCalls) {
        dropGone()
        guard asking == nil, let target = waiters.map(\.after).min() else { return }
        asking = target
        LiveViewRoutes.frame(after: target, nookd) { [self] result in
            asking = nil
            let answered: [Waiter]
            switch result {
            case .failure:
                answered = waiters
                waiters = []
            case .success(let frame):
                // Answers come one at a time, so the last is the glass (a restarted nookd
                // counts its generations from the start again).
                newest = frame
                // Not newer than what was asked past: nookd's wait ran out, and every viewer
                // gets the glass as it is (as a viewer asking nookd itself would).
                let ranOut = frame.generation <= target
                answered = waiters.filter { ranOut || frame.generation > $0.after }
                waiters.removeAll { ranOut || frame.generation > $0.after }
            }
            for waiter in answered { waiter.done(result) }
            ask(nookd)
        }
    }
}
