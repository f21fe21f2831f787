import NookActivities
import NookLogging
import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// AWTRIX's topics (A3): held notifications and their dismissal, and the custom apps.
extension MQTTBridge {
    /// AWTRIX's `notify/dismiss`: the held notification on the glass goes, as on an AWTRIX clock.
    /// Which card is on the glass is asked of nookd now (a card the queue put back, or one
    /// still waiting, is not the one a person sees); it is dismissed only when it is a held
    /// notification this bridge put up, never another sender's card. Otherwise nothing.
    /// A held notification is known by its key (``heldKey(clientID:id:)``), which nookd keeps
    /// with the card: so the bridge knows its own after a restart, with nothing of its own kept.
    func notificationDismissal(_ message: MQTTMessage, digest: UInt64) -> [Delivery] {
        if message.retained {
            logger.debug("\(message.topic): a retained dismissal is not acted on again at each subscription")
            return []
        }
        guard let requests else {
            logger.info("\(message.topic): nookd is not reachable; no held notification dismissed")
            return []
        }
        let status: StatusAnswer
        do throws(ClientError) {
            (status, _) = try requests.request(Request(id: .string("dismissal"), operation: .status), as: StatusAnswer.self)
        } catch {
            if case .daemon = error { logger.error("nookd's status cannot be read: \(error)") } else { nookdLost("\(error)") }
            return []
        }
        let clientID = config.effectiveClientID
        guard let shown = status.modules.compactMap(\.current).first(where: { Self.isHeld($0, clientID: clientID) }) else {
            logger.info("\(message.topic): no held notification of this bridge's on the glass to dismiss")
            return []
        }
        return [Delivery(message: message, operation: .dismiss(shown.id), digest: digest, derivedID: false)]
    }

    /// The key of a held AWTRIX notification (`hold: true`) this bridge puts up: its client id
    /// (the session's, the same across restarts) and the card's own id, so no two of them share
    /// a key (a key shared would coalesce a waiting one away, Q4) and `notify/dismiss` finds the
    /// bridge's own on the glass in nookd's status, whether or not the bridge restarted since.
    public static func heldKey(clientID: String, id: NookActivityID) -> String { heldKeyPrefix(clientID: clientID) + id.description }
    /// A client id too long for a key (``NookActivity/Limits/coalescingKey``) is named by its
    /// FNV-1a hash.
    public static func heldKeyPrefix(clientID: String) -> String {
        guard clientID.utf8.count > 128 else { return "mqtt-hold/\(clientID)/" }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in clientID.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "mqtt-hold/fnv-\(String(hash, radix: 16))/"
    }

    /// Whether `activity` is a held notification the bridge of `clientID` put up: a blocker keyed
    /// with its own id (``heldKey(clientID:id:)``). The whole key, not its prefix: the prefix of
    /// client `a` begins the keys of client `a/b` too, another bridge's notifications.
    public static func isHeld(_ activity: NookActivity, clientID: String) -> Bool {
        activity.isBlocker && activity.coalescingKey == heldKey(clientID: clientID, id: activity.id)
    }

    /// A notification's card keyed as held (``heldKey(clientID:id:)``) when it is one.
    func keyedIfHeld(_ operation: NookOperation, kind: Topics.Inbound) -> NookOperation {
        guard kind == .notify, case .enqueue(var activity, let module, let wait, let inPlace) = operation, activity.isBlocker else { return operation }
        activity.coalescingKey = Self.heldKey(clientID: config.effectiveClientID, id: activity.id)
        return .enqueue(activity, module: module, wait: wait, inPlace: inPlace)
    }

    /// The name the bridge states as the sender of the apps it sets (U3).
    public static let appSender = "nook-mqtt"

    /// The operations on apps that name an owner, read from the protocol's table (the app
    /// family's operations that take a `sender`): the bridge states ``appSender`` in each, so
    /// a broker's clients change the apps they set, never another sender's.
    public static let ownedAppOperations = Set(NookOperation.Name.allCases.filter { name in
        name.rawValue.hasPrefix("app-") && name.entry.fields.contains("sender")
    })

    /// What an AWTRIX topic's message asks of nookd; a refusal is reported on the error topic
    /// and what was left out of an app is logged.
    func awtrixDeliveries(_ kind: Topics.Inbound, message: MQTTMessage, digest: UInt64) -> [Delivery] {
        func delivery(_ operation: NookOperation) -> Delivery { Delivery(message: message, operation: operation, digest: digest, derivedID: false) }
        switch AWTRIXInbound.decode(kind, topic: message.topic, payload: message.payload, retained: message.retained) {
        case .failure(let rejection):
            report(rejection, payload: message.payload)
            return []
        case .success(.nothing(let why)):
            logger.debug("\(message.topic): \(why)")
            return []
        case .success(.operation(let operation)):
            return [delivery(operation)]
        case .success(.set(let apps)):
            // An array is set whole or not at all, in one step of nookd's.
            var set = delivery(apps.count == 1 ? .appSet(apps[0].app) : .appSetAll(apps.map(\.app)))
            set.notes = apps.flatMap { app in app.remarks.map { "app \(app.app.name): \($0)" } }
            return [set]
        case .success(.remove(let name)):
            return appsMadeOf(name).map { delivery(.appRemove($0)) }
        }
    }

    /// `name` and the APP0, APP1, … an array sent to it made, of those the bridge set.
    func appsMadeOf(_ name: String) -> [String] {
        guard let requests else { return [name] }
        let apps: AppListAnswer
        do throws(ClientError) {
            (apps, _) = try requests.request(Request(id: .string("apps"), operation: .appList), as: AppListAnswer.self)
        } catch {
            logger.warning("nookd's app list cannot be read (\(error)); removing \(name) alone")
            return [name]
        }
        // APP held by another sender: nookd refuses its removal (reported), and its parts stay.
        if let held = apps.apps.first(where: { $0.app.name == name })?.app, !(held.sender?.relayed == true && held.sender?.name == Self.appSender) {
            return [name]
        }
        let numbered = apps.apps.map(\.app).filter { app in
            app.name.hasPrefix(name) && app.name != name && app.name.dropFirst(name.count).allSatisfy { $0.isASCII && $0.isNumber }
                && app.sender?.relayed == true && app.sender?.name == Self.appSender
        }
        return [name] + numbered.map(\.name)
    }
}
