import NookConfig
import NookHTTP
import Testing

/// `[publish]` in nook-http's config: the topics taken, and where each kind of card goes.
@Suite struct PublishConfigTests {
    @Test func h2_publishListsTopicsWithTheirModulesAndTheModulesOfEachSender() throws {
        let text = """
            [publish]
            topics = ["alerts", "backups=home"]
            gotify_module = "pve"
            awtrix_module = "clock"
            alert_module = "ops"
            """
        let config = try HTTPConfig(ConfigDocument(parsing: text, source: "http.toml"))
        #expect(config.publish == PublishSettings(topics: ["alerts": nil, "backups": "home"], gotifyModule: "pve", awtrixModule: "clock", alertModule: "ops"))
        #expect(try HTTPConfig(ConfigDocument(parsing: "[http]\n", source: "http.toml")).publish == PublishSettings())
    }

    @Test func h2_aBadPublishSettingIsAnErrorNamingItsKey() {
        for (text, key, words) in [("[publish]\ntopics = [\"a b\"]\n", "publish.topics", "'a b'"), ("[publish]\ntopics = [\"api\"]\n", "publish.topics", "own paths"),
                                   ("[publish]\ngotify_module = \"\"\n", "publish.gotify_module", "empty"),
                                   ("[publish]\ntopic = [\"x\"]\n", "publish.topic", "not a known setting")] {
            #expect(checkError({ try HTTPConfig(ConfigDocument(parsing: text, source: "http.toml")) }) { $0.contains(key) && $0.contains(words) }, "\(text)")
        }
    }
}

/// The publishing routes in nook-http's joined table: a fixed path wins over ntfy's topics.
@Suite struct PublishRouteTableTests {
    func pattern(_ method: String, _ path: String) -> String? {
        if case .found(let route, _) = HTTPRouteTable.standard().match(method: method, path: path) { return route.pattern }
        return nil
    }

    @Test func h2_fixedPathsWinOverNtfysTopicPatterns() {
        #expect(pattern("POST", "/message") == "/message")
        #expect(pattern("POST", "/api/notify") == "/api/notify")
        #expect(pattern("POST", "/api/v1/alertmanager") == "/api/v1/alertmanager")
        #expect(pattern("POST", "/api/v1/grafana") == "/api/v1/grafana")
        #expect(pattern("POST", "/") == "/")
        #expect(pattern("PUT", "/alerts") == "/{topic}")
        #expect(pattern("POST", "/alerts/backup") == "/{topic}/{sequence}")
        #expect(pattern("PUT", "/alerts/backup/clear") == "/{topic}/{sequence}/clear")
        #expect(pattern("DELETE", "/alerts/backup") == "/{topic}/{sequence}")
        guard case .methodNotAllowed(let allowed) = HTTPRouteTable.standard().match(method: "POST", path: "/healthz") else {
            Issue.record("POST /healthz is not a topic")
            return
        }
        #expect(allowed.contains("GET"))
    }
}
