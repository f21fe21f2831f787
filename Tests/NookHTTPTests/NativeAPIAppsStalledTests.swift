import Foundation
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// A3 with H4: a stopped nookd (SIGSTOP, as a stalled SD card stops it) while an app is set or
/// the rotation is turned. The 504 says how to look at *apps* before sending again, not at
/// cards, and nothing the call carried is lost once nookd runs again.
extension NativeAPIAppsTests {
    @Test func a3_anAppSetThatNookdStalledOnAnswers504WithAdviceForAppsAndIsNotLost() throws {
        let timeout = Int(TestBounds.seconds(1))
        let service = try service(nookdConfig: "[apps]\nduration_ms = 3600000\n", http: "nookd_timeout_s = \(timeout)\n")
        let apps = service.url + "/api/v1/apps/"
        #expect(try curl(alice, "PUT", apps + "first", #"{"text":"1"}"#).status == 201, "\(service.logs)")
        ProcessStop.stop(service.nookd.processIdentifier)
        defer { kill(service.nookd.processIdentifier, SIGCONT) }

        let set = try curl(alice, "PUT", apps + "weather", #"{"text":"21 °C"}"#)
        let setWords = set.json["error"]?["message"]?.text ?? ""
        #expect(set.status == 504 && set.json["error"]?["code"]?.text == "outcome_unknown", "\(set)")
        #expect(setWords.contains("GET /api/v1/apps/weather") && !setWords.contains("/api/v1/activities") && !setWords.contains("same id or key"),
                "the advice is about the app, not about cards: \(set)")

        kill(service.nookd.processIdentifier, SIGCONT)
        // The link comes back; the app the stalled call carried is there, and setting it
        // again, as the advice says, updates it in place rather than adding a second.
        let deadline = Date().addingTimeInterval(TestBounds.seconds(30))
        while (try? self.apps(service).contains { $0.app.name == "weather" }) != true, Date() < deadline { usleep(100_000) }
        #expect(try self.apps(service).map(\.app.name).sorted() == ["first", "weather"], "\(service.logs)")
        var again = try curl(alice, "PUT", apps + "weather", #"{"text":"21 °C"}"#)
        while again.status == 503, Date() < deadline {
            usleep(100_000)
            again = try curl(alice, "PUT", apps + "weather", #"{"text":"21 °C"}"#)
        }
        #expect(again.status == 200 && again.json["replaced"] == .bool(true), "\(again)")

        // A turn of the rotation nookd stalled on: pressing again may turn it twice.
        ProcessStop.stop(service.nookd.processIdentifier)
        let next = try curl(bob, "POST", service.url + "/api/v1/rotation/next")
        let nextWords = next.json["error"]?["message"]?.text ?? ""
        #expect(next.status == 504 && nextWords.contains("GET /api/v1/status") && !nextWords.contains("same id or key"), "\(next)")
    }
}

/// U3 with A1 over the native API: another token cannot set an app whose name reads as one it
/// does not own, by a space at either end; the owner's app stays as it was.
extension NativeAPIAppsTests {
    @Test func u3_a3_aNameThatDiffersOnlyByASpaceAtAnEndIsRefusedNamingTheName() throws {
        let service = try service(nookdConfig: "[apps]\nduration_ms = 3600000\n")
        let apps = service.url + "/api/v1/apps/"
        #expect(try curl(alice, "PUT", apps + "weather", #"{"text":"21 °C"}"#).status == 201, "\(service.logs)")
        for spoof in ["weather%20", "%20weather", "weather%C2%A0", "%E3%80%80weather"] {
            let refused = try curl(bob, "PUT", apps + spoof, #"{"text":"-40 °C"}"#)
            #expect(refused.status == 422 && refused.json["error"]?["field"]?.text == "name", "\(spoof): \(refused)")
            #expect(refused.json["error"]?["message"]?.text?.contains("begin or end") == true, "\(spoof): \(refused)")
        }
        let switched = try curl(bob, "POST", service.url + "/api/v1/rotation/switch", #"{"name":"weather "}"#)
        #expect(switched.status == 422 && switched.json["error"]?["field"]?.text == "name", "\(switched)")
        #expect(try self.apps(service).map(\.app.name) == ["weather"])
    }
}
