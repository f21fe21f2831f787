import NookLogging
import NookProtocol
import NookActivities
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// Follows nookd's `inputs` stream on a thread of its own and hands every press, mapped to a
/// key name, to the server's ``LCDKeyInbox`` (E8). A nookd that is absent or restarts is asked
/// again every second; an older nookd without `inputs` is reported once and left alone (the
/// screens work without keys).
public final class InputListener: Sendable {
    private let socketPath: String
    private let keyMap: LCDKeyMap
    private let logger: Logger
    private let deliver: @Sendable (String) -> Void
    private let stopPipe: WakePipe
    private let stopped = Locked(false)

    public init(socketPath: String, keyMap: LCDKeyMap, logger: Logger, deliver: @escaping @Sendable (_ key: String) -> Void) throws(SystemCallError) {
        (self.socketPath, self.keyMap, self.logger, self.deliver) = (socketPath, keyMap, logger, deliver)
        stopPipe = try WakePipe()
        startThread { [self] in run() }
    }

    public func stop() {
        stopped.withLock { $0 = true }
        stopPipe.wake()
    }

    private func run() {
        var warned = false
        while !stopped.withLock({ $0 }) {
            do throws(ClientError) {
                let client = try NookClient(path: socketPath)
                client.readTimeout = .seconds(10)
                _ = try client.request(Request(id: .number(1), operation: .inputs), as: InputsAnswer.self)
                client.readTimeout = nil
                logger.info(warned ? "following nookd's inputs again" : "following nookd's inputs")
                warned = false
                try follow(client)
            } catch {
                if case .daemon(let refusal) = error, refusal.code == .unknownOperation {
                    logger.warning("this nookd has no 'inputs' operation: Nook's buttons are not offered to LCDproc clients as keys")
                    return
                }
                if !warned { logger.warning("cannot follow nookd's inputs (\(error)); trying again every second") }
                warned = true
            }
            // Back off a second, or until stopped.
            var entries = [stopPipe.pollEntry]
            _ = try? pollDescriptors(&entries, timeoutMilliseconds: 1000)
        }
    }

    /// Reads presses until nookd goes away or ``stop()`` is called.
    private func follow(_ client: NookClient) throws(ClientError) {
        while true {
            if !client.hasBufferedLine {
                var entries = [stopPipe.pollEntry, pollfd(fd: client.descriptor, events: Int16(POLLIN), revents: 0)]
                _ = try? pollDescriptors(&entries, timeoutMilliseconds: -1)
                if entries[0].revents != 0 { return }
            }
            guard let line = try client.readLine() else { throw .unreachable("nookd closed the inputs stream") }
            guard case .event(_, let event)? = try? ResponseLine.decode(line), let press = InputMessage(json: event) else { continue }
            // A press that invoked the card on the glass (or moved a recall on) is not also a
            // key: the menu or a client under the card would act on a press meant for the card.
            guard !press.taken else {
                logger.debug("input \(press.input.rawValue) from \(press.source) acted on the card on the glass: no key")
                continue
            }
            guard let key = keyMap.key(for: press) else {
                logger.debug("input \(press.input.rawValue) from \(press.source) is mapped to no key")
                continue
            }
            deliver(key)
        }
    }
}
