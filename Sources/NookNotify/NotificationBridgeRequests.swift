import NookLogging
import NookActivities
import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// nookd's requests: one at a time over one connection, each answer finishing what asked for it
/// (a Notify's reply, a CloseNotification), with the deadlines of the callers that wait.
extension NotificationBridge {
    /// Sends the next waiting request once nothing is outstanding. One at a time: a request
    /// still waiting here when its sender has been told it failed is never sent.
    func pump() {
        while outstanding.isEmpty, !waiting.isEmpty {
            let work = waiting.removeFirst()
            guard let (operation, purpose) = prepare(work) else { continue }
            send(operation, purpose)
        }
    }

    /// The request for `work`, planned against the registry as it is now; nil: nothing to send.
    func prepare(_ work: Work) -> (NookOperation, Purpose)? {
        switch work {
        case .notify(let work):
            guard !work.caller.answered else { return nil }
            let call = work.call
            var notes = work.notes
            let placement = registry.plan(call, uid: work.uid)
            if let note = placement.note { notes.append(note) }
            let activityID = placement.replacing ?? NookActivityID()
            let mapped = NotificationMapping.activity(for: call, id: activityID, key: placement.coalescingKey, allowPaths: work.uid == ownUID)
            notes += mapped.notes
            logger.debug("sending notification \(placement.id) from \(work.caller.sender) to nookd")
            for note in notes {
                logger.notice("notification from \(work.caller.sender) (\(call.appName.isEmpty ? "no app name" : call.appName)): \(note)")
            }
            if let live = placement.replacing {
                // A replacement changes the live card in place (U1): one on the glass is redrawn
                // with no slide out and in, and its time counts again from now, as the sender's
                // expire_timeout says; a pending one keeps its place.
                let previous = registry.record(placement.id)?.card
                return (.update(.id(live), changes: Self.changes(to: mapped.activity), restartDwell: true),
                        .notify(work, placement, card: mapped.activity, previous: previous ?? mapped.activity))
            }
            return (.enqueue(mapped.activity, module: options.module, wait: false), .notify(work, placement, card: mapped.activity, previous: nil))
        case .close(let id, let uid):
            guard case .cancel(let activity) = registry.requestClose(id, uid: uid) else { return nil }
            return (.cancel(activity), .close(id: id))
        case .dismiss(let activity, let id):
            return (.dismiss(activity), .dismiss(id: id))
        case .list:
            return (.list(module: nil), .list(ListingPass()))
        }
    }

    /// Every field of `card` but its id, the absent ones cleared: an update that makes the live
    /// card this one.
    static func changes(to card: NookActivity) -> ActivityChanges {
        let encoded = ActivityPayload.encode(card)
        var members: [(String, JSONValue)] = []
        for field in ActivityField.allCases where field != .id {
            if let value = encoded[field.wireName] {
                members.append((field.wireName, value))
            } else {
                members.append((field.wireName, field.takesValue ? .null : .bool(false)))
            }
        }
        // Beside the icon it stands for, resolved by nookd as at enqueue (M3).
        if let fallback = card.iconFallback { members.append(("iconFallback", .string(fallback))) }
        return ActivityChanges(members: members)
    }

    func send(_ operation: NookOperation, _ purpose: Purpose, retried: Bool = false) {
        do throws(ClientError) {
            let client: NookClient
            if let requests { client = requests } else {
                client = try NookClient(path: options.socketPath)
                requests = client
            }
            requestNumber += 1
            // A Notify's request is not carried out after its sender has been told it failed.
            var deadline: Double?
            if case .notify(let work, _, _, _) = purpose { deadline = work.caller.deadline }
            try client.send(Request(id: .number(Double(requestNumber)), operation: operation, deadline: deadline).encoded())
            outstanding.append(Sent(operation: operation, purpose: purpose, sentAt: MonotonicClock.seconds, retried: retried))
        } catch {
            let hadConnection = requests != nil
            requests = nil
            // A connection that broke since the last request (nookd restarted) is made again
            // once, for what it still owed answers to first.
            if hadConnection, !retried {
                resend(lost: error.description)
                let again = Self.onANewConnection(operation, purpose)
                send(again.operation, again.purpose, retried: true)
                return
            }
            finish(purpose, .failure(error))
        }
    }

    /// The request connection is gone: what was sent on it and not answered goes again, once,
    /// on a new connection (an enqueue that did arrive is refused as a duplicate id, which
    /// counts as taken); a Notify whose sender was already told it failed is not sent again.
    func resend(lost failure: String) {
        requests = nil
        let lost = outstanding
        outstanding = []
        for sent in lost {
            if case .notify(let work, _, _, _) = sent.purpose, work.caller.answered { continue }
            if sent.retried {
                finish(sent.purpose, .failure(.connectionLost(failure)))
            } else {
                let again = Self.onANewConnection(sent.operation, sent.purpose)
                send(again.operation, again.purpose, retried: true)
            }
        }
    }

    /// What a request lost with its connection is sent as on the next one: itself, but a page
    /// of `list`, whose pages before were another connection's (perhaps another nookd's), starts
    /// its pass again from the first page.
    static func onANewConnection(_ operation: NookOperation, _ purpose: Purpose) -> (operation: NookOperation, purpose: Purpose) {
        guard case .list(let pass) = purpose else { return (operation, purpose) }
        return (.list(module: nil), .list(ListingPass(suspects: pass.suspects)))
    }

    func readAnswers() {
        guard let client = requests else { return }
        var open = true
        var failure = "nookd closed the connection"
        do throws(ClientError) {
            open = try client.readAvailable()
        } catch {
            open = false
            failure = error.description
        }
        while requests === client, let line = client.bufferedLine() {
            guard !outstanding.isEmpty else { break }
            let result: Result<JSONValue, ClientError>
            switch try? ResponseLine.decode(line) {
            case .success(_, let value)?: result = .success(value)
            case .failure(_, let error)?: result = .failure(.daemon(error))
            case .event?: continue
            case nil: result = .failure(.daemon(ProtocolError(.badJSON, "nookd's answer cannot be read")))
            }
            finish(outstanding.removeFirst().purpose, result)
        }
        guard !open, requests === client else { return }
        resend(lost: failure)
    }

    /// nookd answered `purpose`'s request (or it could not be sent).
    func finish(_ purpose: Purpose, _ result: Result<JSONValue, ClientError>) {
        switch purpose {
        case .notify(let work, let placement, let card, let previous):
            finishNotify(work, placement, card: card, previous: previous, result)
        case .close(let id):
            if case .failure(let error) = result, !Self.isNotFound(error) {
                // notFound: it ended meanwhile; its end event is on its way and reports reason 3.
                logger.warning("could not close notification \(id) in nookd: \(error)")
            }
        case .dismiss(let id):
            if case .failure(let error) = result {
                // notFound: it ended meanwhile, and its end event closes it with its own reason.
                logger.info("notification \(id): could not dismiss it after its action: \(error)")
            }
        case .list(var pass):
            let page: ListAnswer
            switch result {
            case .success(let json):
                do throws(ProtocolError) { page = try ListAnswer(json: json) } catch {
                    logger.warning("nookd's list could not be read (\(error)); notifications that ended unseen stay open")
                    return
                }
            case .failure(let error):
                logger.warning("could not list nookd's activities (\(error)); notifications that ended unseen stay open")
                return
            }
            pass.take(page)
            if let text = page.cursor {
                // A page that names where it started as the next would loop.
                guard let cursor = ListCursor(text: text), cursor != pass.cursor else {
                    logger.warning("nookd's list page named \(text) as the next, which is not a later cursor; notifications that ended unseen stay open")
                    return
                }
                pass.cursor = cursor
                send(.list(module: nil, after: cursor), .list(pass))
                return
            }
            let missing = Set(registry.activities).subtracting(pass.live)
            if pass.pages > 1, pass.suspects == nil, !missing.isEmpty {
                // Cards that end between pages move nothing across the cursor, but one that
                // moved ahead of it (an update that raised its priority) is on no page: only
                // what a second pass misses too has ended.
                send(.list(module: nil), .list(ListingPass(suspects: missing)))
                return
            }
            reconcile(ended: missing.intersection(pass.suspects ?? missing))
        case .withdraw(let what):
            if case .failure(let error) = result, !Self.isNotFound(error) { logger.warning("could not withdraw \(what): \(error)") }
        }
    }

    func finishNotify(_ work: NotifyWork, _ placement: NotificationRegistry.Placement, card: NookActivity, previous: NookActivity?,
                              _ result: Result<JSONValue, ClientError>) {
        let sender = work.caller.sender
        if work.caller.answered {
            // Told it failed at its deadline; its withdrawal went right behind it.
            logger.notice("nookd answered notification \(placement.id) from \(sender) after its sender was told it failed; withdrawn")
            return
        }
        switch result {
        case .success(let answer):
            // nookd's own warnings (characters an LED font lacks, …): a notification has no
            // answer to carry them, so the log says them, as it says the bridge's notes.
            for warning in answer["warnings"]?.items.compactMap(\.text) ?? [] {
                logger.notice("notification from \(sender) (\(work.call.appName.isEmpty ? "no app name" : work.call.appName)): \(warning)")
            }
        case .failure(let error) where previous == nil && Self.isOwnEarlierAttempt(error):
            // The id is new for this call: nookd holding it already means the first attempt
            // got through before its answer was lost (a dropped connection), and the retry was
            // refused as a duplicate. It is queued; treat it as accepted.
            logger.info("nookd already had activity \(card.id) from an attempt whose answer was lost")
        case .failure(let error) where previous != nil && Self.isNotFound(error):
            // The live card ended between the plan and the update: the replacement is a new card
            // under the same notification id.
            var fresh = card
            fresh.id = NookActivityID()
            send(.enqueue(fresh, module: options.module, wait: false), .notify(work, placement, card: fresh, previous: nil))
            return
        case .failure(.daemon(let refusal)) where Self.refusesSoundFile(refusal, of: card):
            // nookd's check of the sender's sound-file (not in sound.directory, not a WAV file
            // it plays): the card goes again without it, as a sound never costs the card (B4).
            var fallback = card
            fallback.sound = NotificationSound.withoutFile(work.call, card.priority)
            let note = "hint sound-file '\(NotificationMapping.clipped(card.sound ?? ""))' not played: \(refusal.message); "
                + NotificationSound.fallback(work.call, card.priority)
            logger.notice("notification from \(sender) (\(work.call.appName.isEmpty ? "no app name" : work.call.appName)): \(note)")
            if previous == nil {
                send(.enqueue(fallback, module: options.module, wait: false), .notify(work, placement, card: fallback, previous: nil))
            } else {
                send(.update(.id(card.id), changes: Self.changes(to: fallback), restartDwell: true),
                     .notify(work, placement, card: fallback, previous: previous))
            }
            return
        case .failure(let error):
            logger.warning("nookd did not take a notification from \(sender): \(error)")
            let (name, text) = busError(error)
            do { try work.caller.fail(name, text) } catch { logger.error("cannot answer \(sender)'s Notify: \(error)") }
            return
        }
        registry.commit(placement, activity: card.id, uid: work.uid, sender: sender, hasDefaultAction: work.call.hasDefaultAction,
                        isResident: work.call.isResident, card: card)
        logger.debug("notification \(placement.id) from \(sender) is activity \(card.id)\(previous == nil ? "" : ", updated in place")")
        do { try work.caller.reply(placement.id) } catch { logger.error("cannot answer \(sender)'s Notify: \(error)") }
    }

    /// The D-Bus error for a request nookd did not carry out.
    func busError(_ error: ClientError) -> (String, String) {
        switch error {
        case .unreachable, .connectionLost:
            return (Self.errorFailed, "nookd is not reachable at \(options.socketPath): \(error)")
        case .daemon(let refusal):
            let text = "nookd refused the notification: \(error)"
            switch refusal.code {
            case .queueFull: return (Self.errorLimitsExceeded, text)
            case .forbidden: return (Self.errorAccessDenied, text)
            case .unavailable, .internalError: return (Self.errorFailed, text)
            default: return (Self.errorInvalidArgs, text)
            }
        }
    }

    /// Answers every Notify whose deadline has passed: one still waiting is dropped unsent; one
    /// sent has its request withdrawn at once, right behind it on the same connection, so
    /// nookd takes the withdrawal next.
    func expireCallers(now: Double) {
        let message = "nookd did not answer within \(Self.seconds(options.timeout)) (it is stopped or stalled)"
        waiting.removeAll { work in
            guard case .notify(let notify) = work, now >= notify.caller.deadline else { return false }
            logger.warning("notification from \(notify.caller.sender) not sent: \(message)")
            do { try notify.caller.fail(Self.errorFailed, message + "; the notification was not sent") } catch {
                logger.error("cannot answer \(notify.caller.sender)'s Notify: \(error)")
            }
            return true
        }
        for sent in outstanding {
            guard case .notify(let work, let placement, let card, let previous) = sent.purpose, !work.caller.answered, now >= work.caller.deadline
            else { continue }
            logger.warning("notification \(placement.id) from \(work.caller.sender): \(message); withdrawing it")
            do { try work.caller.fail(Self.errorFailed, message + "; the notification was withdrawn") } catch {
                logger.error("cannot answer \(work.caller.sender)'s Notify: \(error)")
            }
            if let previous {
                send(.update(.id(card.id), changes: Self.changes(to: previous), restartDwell: false),
                     .withdraw("the replacement of notification \(placement.id)"))
            } else {
                send(.cancel(card.id), .withdraw("notification \(placement.id) (activity \(card.id))"))
            }
        }
    }

    /// The next time a waiting or outstanding Notify must be answered.
    func nextDeadline() -> Double? {
        var next: Double?
        func consider(_ caller: Caller) {
            guard !caller.answered else { return }
            next = min(next ?? caller.deadline, caller.deadline)
        }
        for work in waiting { if case .notify(let notify) = work { consider(notify.caller) } }
        for sent in outstanding { if case .notify(let work, _, _, _) = sent.purpose { consider(work.caller) } }
        return next
    }

    /// Whether nookd has left a request unanswered for the whole timeout: new notifications
    /// are then told at once instead of each waiting that long.
    func stalledFor(now: Double) -> Double? {
        guard let oldest = outstanding.first, now - oldest.sentAt >= options.timeout else { return nil }
        return now - oldest.sentAt
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    static func isNotFound(_ error: ClientError) -> Bool {
        if case .daemon(let refusal) = error, refusal.code == .notFound { return true }
        return false
    }

    /// nookd's refusal of the card's sound where it is a file's path (only a notification's
    /// `sound-file` is): the one refusal a card is sent again for, without it.
    static func refusesSoundFile(_ refusal: ProtocolError, of card: NookActivity) -> Bool {
        refusal.code == .invalid && ["activity.sound", "changes.sound"].contains(refusal.field) && card.sound?.hasPrefix("/") == true
    }

    /// nookd's refusal of an id it already holds (see `enqueueUnique` in NookDaemon).
    static func isOwnEarlierAttempt(_ error: ClientError) -> Bool {
        guard case .daemon(let refusal) = error else { return false }
        return refusal.code == .invalid && refusal.field == "activity.id" && refusal.message.contains("already")
    }
}
