import Foundation
import NookActivities
import NookHTTP
import NookProtocol
import Testing

/// H2: a refusal names the field the sender sent, never the card's own name for it (AWTRIX's
/// `duration` is the card's `dwell`), and a Gotify form's priority is a decimal integer only.
@Suite struct SenderFieldTests {
    /// nookd refusing every card it is given, naming one of the card's fields.
    final class RefusingNookd: NookdCalls {
        let field: String
        init(field: String) { self.field = field }
        func call(_ request: Request, done: @escaping (Result<JSONValue, NookdCallError>) -> Void) {
            done(.failure(.refused(ProtocolError(.invalid, field: field, "refused for the test").json)))
        }
    }

    func answer(_ method: String, _ pattern: String, _ request: HTTPRequest, parameters: [String: String] = [:],
                refusing field: String) throws -> HTTPAPIError? {
        let routes = RouteCaller(routes: PublishRoutes.routes(settings: PublishSettings(), logger: RouteCaller.logger),
                                 nookd: RefusingNookd(field: field))
        let response = try routes.call(method, pattern, request, parameters: parameters)
        let error = response.json["error"]
        return error.map { HTTPAPIError(status: response.status, code: $0["code"]?.text ?? "", field: $0["field"]?.text, message: $0["message"]?.text ?? "") }
    }

    @Test func h2_awtrixRefusalsNameAWTRIXsFields() throws {
        let body = ##"{"text": "hi", "color": "#FF0000", "duration": 5, "progress": 40, "icon": "bell", "hold": true}"##
        for (card, sent) in [("activity.title", "text"), ("activity.tint", "color"), ("activity.dwell", "duration"),
                             ("activity.progress", "progress"), ("activity.icon", "icon"), ("activity.blocker", "hold")] {
            let error = try answer("POST", "/api/notify", httpRequest("POST", "/api/notify", body: body), refusing: card)
            #expect(error?.field == sent, "nookd refused \(card): \(String(describing: error))")
        }
        // A field of the card no field of the sender's made is named as the card's, in words.
        let chosen = try answer("POST", "/api/notify", httpRequest("POST", "/api/notify", body: body), refusing: "activity.transition")
        #expect(chosen?.field == nil && chosen?.message.contains("the card's transition") == true, "\(String(describing: chosen))")
    }

    @Test func h2_gotifyAndNtfyRefusalsNameTheirSendersFields() throws {
        let gotify = httpRequest("POST", "/message", headers: [("Content-Type", "application/json")], body: #"{"title": "T", "message": "M", "priority": 5}"#)
        for (card, sent) in [("activity.title", "title"), ("activity.subtitle", "message"), ("activity.dwell", "priority"), ("activity.tint", "priority")] {
            #expect(try answer("POST", "/message", gotify, refusing: card)?.field == sent, "Gotify, nookd refused \(card)")
        }
        let untitled = httpRequest("POST", "/message", headers: [("Content-Type", "application/json")], body: #"{"message": "M"}"#)
        #expect(try answer("POST", "/message", untitled, refusing: "activity.title")?.field == "message", "Gotify: the message's first line is the title")

        let ntfy = httpRequest("POST", "/alerts", headers: [("Title", "T"), ("Tags", "warning"), ("Priority", "4")], body: "M")
        for (card, sent) in [("activity.title", "title"), ("activity.subtitle", "message"), ("activity.icon", "tags"), ("activity.tint", "tags"),
                             ("activity.dwell", "priority"), ("activity.key", "topic"), ("module", "topic")] {
            #expect(try answer("POST", "/{topic}", ntfy, parameters: ["topic": "alerts"], refusing: card)?.field == sent, "ntfy, nookd refused \(card)")
        }
        // The update of a card with a sequence id: nookd names `changes.…`.
        let sequenced = httpRequest("PUT", "/alerts/backup", body: "M")
        #expect(try answer("PUT", "/{topic}/{sequence}", sequenced, parameters: ["topic": "alerts", "sequence": "backup"],
                           refusing: "changes.subtitle")?.field == "message")
    }

    /// 1e-300 s is 0 once kept to the nanosecond: refused as AWTRIX's `duration`, before nookd
    /// is asked, not as a `dwell` the sender never sent.
    @Test func h2_anAWTRIXDurationTooShortToKeepIsRefusedNamingDuration() throws {
        for duration in ["1e-300", "1e-10", "-1"] {
            guard case .failure(let error) = AWTRIXNotification.decode(Array(#"{"text": "hi", "duration": \#(duration)}"#.utf8)) else {
                Issue.record("duration \(duration) was taken"); continue
            }
            #expect(error.status == 400 && error.field == "duration", "\(duration): \(error)")
        }
        // AWTRIX's 0 is its default (M2): the card's own dwell.
        let zero = try AWTRIXNotification.decode(Array(#"{"text": "hi", "duration": 0}"#.utf8)).get()
        #expect(AWTRIXMapping.card(for: zero, id: NookActivityID(), module: nil).activity.dwell == NookActivity.defaultDwell)
        let kept = try AWTRIXNotification.decode(Array(#"{"text": "hi", "duration": 0.5}"#.utf8)).get()
        #expect(AWTRIXMapping.card(for: kept, id: NookActivityID(), module: nil).activity.dwell == .milliseconds(500))
    }

    /// Gotify reads a form's priority as a base-10 integer: `0x10` is no 16.
    @Test func h2_aGotifyFormPriorityIsADecimalIntegerOnly() throws {
        for text in ["0x10", "1e1", "inf", "nan", "1.5", "0b1", "++1", "-"] {
            let request = httpRequest("POST", "/message", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                      body: "message=m&priority=" + text.replacingOccurrences(of: "+", with: "%2B"))
            guard case .failure(let error) = GotifyMessage.decode(request) else { Issue.record("priority=\(text) was taken"); continue }
            #expect(error.status == 400 && error.field == "priority", "\(text): \(error)")
        }
        for (text, read) in [("7", 7), ("+7", 7), (" 7 ", 7), ("16", 10), ("-3", 0), ("99999999999999999999", 10)] {
            let request = httpRequest("POST", "/message", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                      body: "message=m&priority=" + text.replacingOccurrences(of: "+", with: "%2B").replacingOccurrences(of: " ", with: "+"))
            #expect((try? GotifyMessage.decode(request).get())?.priority == read, "\(text)")
        }
    }
}
