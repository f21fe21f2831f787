import NookActivities
import NookLogging
import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// A lost link: which calls nookd may have carried out (504) and which it cannot have (503).
extension NookdLink {
    /// Fails every call in flight or waiting as a lost link does (nook-http stops). With none,
    /// a routine stop, nothing is warned of.
    public func abandon(_ reason: String) { lose(reason, abandoning: true) }

    /// What nookd said, closing the connection, of the calls it began.
    enum Closing {
        /// Nothing: any call it may have read may have been begun.
        case unsaid
        /// It began the calls up to this id (nil: none) and none after.
        case begunThrough(Double?)
    }

    /// Drops the connection: every call in flight fails at once, the next attempt is scheduled.
    /// `quiet`: nookd closed a connection with nothing in flight (its idle timeout), which is
    /// no outage: the next call reconnects at once.
    ///
    /// A call that changes something and whose line nookd may have read (a byte of it was
    /// written: nookd handles a last line without its newline too) may have been carried out:
    /// it fails `.outcomeUnknown`, never `.unavailable`, which says nothing was done. A call
    /// still unwritten, or one that only reads, fails `.unavailable`; so does every call
    /// nookd said it did not begin (`closing`).
    func lose(_ reason: String, quiet: Bool = false, closing: Closing = .unsaid, abandoning: Bool = false) {
        guard socket != nil else { return }
        socket = nil
        outgoing.removeAll()
        sent = 0
        incoming.removeAll()
        incomingSearched = 0
        let written = writtenBytes
        queuedBytes = 0
        writtenBytes = 0
        answerBytesInFlight = 0
        if quiet {
            logger.debug("nookd closed the idle connection; the next call opens another")
            nextAttempt = .zero
            return
        }
        let inFlight = pending[pendingStart...]
        pending = []
        pendingStart = 0
        let waiting = waitingCalls[waitingStart...]
        waitingCalls = []
        waitingStart = 0
        // Whether nookd may have begun the call: it said which it began, or it may have read it.
        func mayHaveBegun(_ call: Pending) -> Bool {
            switch closing {
            case .unsaid: call.start < written
            case .begunThrough(let last): last.map { call.id <= $0 } ?? false
            }
        }
        let unknown = inFlight.filter { $0.changes && mayHaveBegun($0) }.count
        if abandoning && inFlight.isEmpty && waiting.isEmpty {
            logger.debug("closed nookd's link for \(options.role) on the way out; no call was in flight or waiting")
        } else {
            logger.warning("lost nookd's link for \(options.role): \(reason); of \(inFlight.count + waiting.count) call(s) in flight or waiting, \(unknown) that nookd may have carried out answer 504 (outcome unknown), the rest 503")
        }
        lastFailure = reason
        nextAttempt = clock() + .milliseconds(Int64(backoff.next() * 1000))
        for call in inFlight {
            if call.changes && mayHaveBegun(call) {
                call.done(.failure(.outcomeUnknown("nookd went away (\(reason)) after it received the request and before it answered: it may or may not have been carried out")))
            } else if mayHaveBegun(call) {
                call.done(.failure(.unavailable("nookd went away before it answered (\(reason)); the request only reads, so nothing was done")))
            } else if case .begunThrough = closing {
                call.done(.failure(.unavailable("\(reason); the request was not carried out")))
            } else {
                call.done(.failure(.unavailable("nookd went away before nook-http could send the request: nothing was done")))
            }
        }
        for call in waiting {
            call.done(.failure(.unavailable("nookd went away while the request waited in nook-http: it was never sent, nothing was done")))
        }
    }
}
