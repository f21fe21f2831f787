import NookActivities
import NookProtocol

/// AWTRIX 3's custom-app topics (A3): `PREFIX/custom/APP` (a JSON app, an array of them, or
/// an empty payload that removes it), `PREFIX/switch` (`{"name": "APP"}`), `PREFIX/nextapp`
/// and `PREFIX/previousapp`. The apps are read by ``AWTRIXApp``, as nook-http reads them.
///
/// A retained custom app is the app's current state: it sets the app again on every
/// subscription, as on an AWTRIX clock. A retained switch or turn is not acted on: it would
/// turn the rotation at every reconnect.
public enum AWTRIXInbound {
    public enum Asked: Sendable, Equatable {
        case set([AWTRIXApp])
        /// The app and the APP0, APP1, … an array made of it.
        case remove(String)
        case operation(NookOperation)
        /// Nothing to do, and why (for the debug log).
        case nothing(String)
    }

    public static func decode(_ kind: Topics.Inbound, topic: String, payload: [UInt8], retained: Bool) -> Result<Asked, Rejection> {
        do throws(Rejection) {
            guard payload.count <= InboundMessage.largestPayload else { throw InboundMessage.tooLong(payload, topic: topic) }
            switch kind {
            case .customApp(let name):
                do {
                    switch try AWTRIXApp.body(name: name, payload) {
                    case .remove: return .success(.remove(name))
                    case .set(let apps): return .success(.set(apps))
                    }
                } catch {
                    throw Rejection(topic: topic, error)
                }
            case .switchApp, .nextApp, .previousApp:
                if retained {
                    return .success(.nothing("a retained message is not acted on again at each subscription; clear it with mosquitto_pub -r -n -t \(topic)"))
                }
                if kind == .nextApp { return .success(.operation(.appNext)) }
                if kind == .previousApp { return .success(.operation(.appPrevious)) }
                return .success(.operation(.appSwitch(try switchName(payload, topic: topic))))
            case .activity, .command, .notify, .notifyDismiss, .device, .siren, .display:
                throw Rejection(topic: topic, code: "internalError", field: nil, "not an AWTRIX topic")
            }
        } catch {
            return .failure(error)
        }
    }

    /// `{"name": "APP"}`, or the name alone as plain text.
    static func switchName(_ payload: [UInt8], topic: String) throws(Rejection) -> String {
        guard let text = String(validating: payload, as: UTF8.self) else {
            throw Rejection(topic: topic, code: "invalid", field: "payload", "is not valid UTF-8 text")
        }
        let trimmed = text.trimmingWhitespace()
        guard trimmed.first == "{" else {
            guard !trimmed.isEmpty else { throw Rejection(topic: topic, code: "missingField", field: "name", "is required: {\"name\": \"APP\"}") }
            return String(trimmed)
        }
        let value: JSONValue
        do { value = try JSONValue.parse(Array(trimmed.utf8)) } catch {
            throw Rejection(topic: topic, code: "badJSON", field: "payload", "a switch is {\"name\": \"APP\"}: \(error)")
        }
        switch value["name"] {
        case .string(let name)?: return name
        case nil, .null?: throw Rejection(topic: topic, code: "missingField", field: "name", "is required: {\"name\": \"APP\"}")
        case let other?: throw Rejection(topic: topic, code: "wrongType", field: "name", "must be a string, got \(other.typeName)")
        }
    }
}
