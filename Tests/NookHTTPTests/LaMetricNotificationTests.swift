import NookActivities
import NookHTTP
import NookProtocol
import Testing

/// LaMetric's notifications read as cards (M4), as demetriek and LaMetric's documents send them.
struct LaMetricNotificationTests {
    static func card(_ json: String, id: Int64 = 7) throws -> PublishedCard {
        let notification = try LaMetricNotification.decode(Array(json.utf8)).get()
        return LaMetricMapping.card(for: notification, id: id, module: nil)
    }

    @Test func m4_framesMakeOneCardGoalIsItsProgressChartASparklineAndWhatIsNotShownIsSaid() throws {
        let card = try Self.card(#"""
            {"priority":"warning","icon_type":"info","model":{"cycles":2,"frames":[
              {"icon":"a7956","text":"Washer done"},{"text":"Kitchen"},
              {"icon":"i120","goalData":{"start":0,"current":45,"end":180,"unit":"min"}},
              {"chartData":[1,5,3,9,2]}],"sound":{"category":"notifications","id":"win","repeat":1}}}
            """#)
        let activity = card.activity
        #expect(activity.title == "Washer done" && activity.subtitle == "Kitchen  ·  45 / 180 min  ·  ▁▄▂█▁", "\(activity)")
        #expect(activity.progress == 0.25 && activity.coalescingKey == "lametric-7")
        #expect(activity.priority == .high && activity.tint == .named(.orange))
        #expect(activity.dwell == NookActivity.defaultDwell * 8, "two cycles of four frames")
        // The id goes to nookd, which draws its file or says the card shows icon_type's icon (M3).
        #expect(activity.systemImage == "a7956" && activity.iconFallback == "info.circle", "\(activity)")
        // LaMetric's sound is the card's, played as the nearest chime by nookd (B4).
        #expect(activity.sound == "win" && !card.notes.contains { $0.contains("sound") }, "\(card.notes)")
    }

    @Test func m4_priorityCyclesLifetimeAndANookIconNameAreTheCardsOwn() throws {
        let critical = try Self.card(#"{"priority":"critical","icon_type":"alert","lifeTime":90000,"model":{"cycles":0,"frames":[{"icon":"bell","text":"Door"}]}}"#)
        #expect(critical.activity.isBlocker && critical.activity.tint == .named(.red) && critical.activity.systemImage == "bell")
        #expect(critical.activity.expiresAfter == .seconds(90) && critical.notes.isEmpty, "\(critical.notes)")
        // demetriek sends life_time; an icon given as a number is an id too.
        let info = try Self.card(#"{"life_time":5000,"model":{"frames":[{"icon":7956,"text":"x"}]}}"#)
        #expect(info.activity.priority == .normal && info.activity.tint == .accent)
        #expect(info.activity.expiresAfter == .seconds(5) && info.activity.dwell == NookActivity.defaultDwell)
        #expect(info.activity.systemImage == "7956" && info.activity.iconFallback == "" && info.notes.isEmpty, "nookd says it, \(info.notes)")
        let unknown = try Self.card(#"{"model":{"frames":[{"text":"x"}],"wallpaper":1},"expires":3}"#)
        #expect(unknown.notes.sorted() == ["'expires' is not a field of LaMetric's notifications Nook reads: ignored",
                                           "model.wallpaper is not a field Nook reads: ignored"], "\(unknown.notes)")
    }

    @Test(arguments: [
        (#"[1]"#, "body"), (#"{}"#, "model"), (#"{"model":{"frames":[]}}"#, "model.frames"),
        (#"{"priority":"urgent","model":{"frames":[{"text":"x"}]}}"#, "priority"),
        (#"{"model":{"cycles":-1,"frames":[{"text":"x"}]}}"#, "model.cycles"),
        (#"{"model":{"frames":[{"goalData":{"start":0,"end":5}}]}}"#, "model.frames[0].goalData.current"),
        (#"{"model":{"frames":[{"chartData":["a"]}]}}"#, "model.frames[0].chartData"),
        (#"{"model":{"frames":[{"icon":true,"text":"x"}]}}"#, "model.frames[0].icon"),
        (#"{"model":{"frames":[{"icon":"i1"}]}}"#, "model.frames[0]"),
    ])
    func m4_aMalformedNotificationIsRefusedNamingTheField(body: String, field: String) {
        guard case .failure(let error) = LaMetricNotification.decode(Array(body.utf8)) else {
            Issue.record("\(body) was taken")
            return
        }
        #expect(error.status == 400 && error.field == field, "\(body): \(error.field ?? "no field") \(error.message)")
    }

    /// The widest finite values have an infinite difference: the chart and the goal are still drawn.
    @Test func m4_aChartOrAGoalOfTheWidestFiniteValuesIsDrawnNotATrap() throws {
        #expect(try Self.card(#"{"model":{"frames":[{"chartData":[-1e308,0,1e308]}]}}"#).activity.title == "▁▄█")
        let goal = try Self.card(#"{"model":{"frames":[{"goalData":{"start":-1e308,"current":0,"end":1e308}}]}}"#)
        #expect(goal.activity.progress == 0.5, "\(goal.activity)")
    }

    @Test func m4_anErrorOnALaMetricRouteIsLaMetricsBodyWithNooksWords() throws {
        let error = HTTPAPIError(status: 401, code: "unauthorized", message: "the token is not one nook-http knows",
                                 headers: [("WWW-Authenticate", "Bearer realm=\"nook-http\""), ("Retry-After", "3")])
        let shaped = LaMetricErrorBody.shaped(error.response)
        let body = try JSONValue.parse(shaped.body)
        #expect(shaped.status == 401 && body == .object([("errors", .array([.object([
            ("message", .string("the token is not one nook-http knows")), ("reason", .string("unauthorized"))])]))]), "\(body)")
        // LaMetric's challenge in place of Nook's; the other fields kept.
        let fields = shaped.headers.filter { $0.name != "Content-Type" }.map { "\($0.name): \($0.value)" }
        #expect(fields == ["Retry-After: 3", "WWW-Authenticate: Basic realm=\"LaMetric\""], "\(shaped.headers)")
    }
}
