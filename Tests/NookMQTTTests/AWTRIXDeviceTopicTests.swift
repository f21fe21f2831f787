import Foundation
import NookMQTT
import NookProtocol
import NookTestTraits
import Testing

/// M1: docs/awtrix-device.md's table names every AWTRIX topic of ``MQTTTopicTable`` but the
/// apps' and notifications' (docs/apps.md, docs/mqtt.md), and no other.
@Suite struct AWTRIXDeviceTopicTests {
    /// The topics of the table's MQTT column: `AWTRIX/stats (out)` is `AWTRIX/stats out`.
    static func documentedTopics() throws -> [String] {
        let text = try String(contentsOfFile: BuiltProducts.repository + "/docs/awtrix-device.md", encoding: .utf8)
        return text.split(separator: "\n").compactMap { line -> String? in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 3, cells[1].hasPrefix("`") else { return nil }
            let parts = cells[1].split(separator: "`")
            return "\(parts[0]) \(cells[1].hasSuffix("(out)") ? "out" : "in")"
        }
    }

    static let appTopics: Set<String> = ["AWTRIX/notify in", "AWTRIX/custom/APP in", "AWTRIX/switch in", "AWTRIX/nextapp in", "AWTRIX/previousapp in"]

    @Test func m1_theDeviceTableListsEveryAWTRIXTopicButTheAppsAndNoOther() throws {
        let rows = MQTTTopicTable.rows.filter { $0.pattern.hasPrefix("AWTRIX/") }.map { "\($0.pattern) \($0.direction.rawValue)" }
        let found = DocumentedLists.differences(rows: rows.filter { !Self.appTopics.contains($0) }, listed: try Self.documentedTopics(),
                                                in: "docs/awtrix-device.md")
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    /// Each device topic is subscribed, and a message on it is the device request of its name.
    @Test func m1_everyDeviceTopicIsSubscribedAndLookedUp() {
        let topics = Topics(prefix: "nook", device: "b1", awtrixPrefix: "awtrix_abc123")
        for request in AWTRIXDevice.Request.allCases where request != .erase && request != .resetSettings {
            #expect(topics.inbound.contains("awtrix_abc123/\(request.rawValue)") && topics.kind(of: "awtrix_abc123/\(request.rawValue)") == .device(request))
        }
        #expect(topics.awtrixStats == ["awtrix_abc123/stats", "awtrix_abc123/stats/effects", "awtrix_abc123/stats/transitions", "awtrix_abc123/stats/loop"])
    }
}
