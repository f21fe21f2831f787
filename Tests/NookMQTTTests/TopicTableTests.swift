import Foundation
import NookMQTT
import NookProtocol
import NookTestTraits
import Testing

/// nook-mqtt's topics are the rows of ``MQTTTopicTable`` (E4, A3): what the bridge subscribes
/// to and how a message's topic is looked up come from them, and the topic lists users read
/// (docs/mqtt.md's table, nook-mqtt(8)'s TOPICS) name every row and no other topic.
@Suite struct TopicTableTests {
    static func text(_ file: String) throws -> String {
        try String(contentsOfFile: BuiltProducts.repository + "/" + file, encoding: .utf8)
    }

    /// One topic as a list writes it: `PREFIX/DEVICE/activity in`.
    static var rows: [String] { MQTTTopicTable.rows.map { "\($0.pattern) \($0.direction.rawValue)" } }

    /// docs/mqtt.md's topic table: each topic in the first column (several may share a line),
    /// the direction the first word of the second.
    static func mqttMdTopics(_ text: String) -> [String] {
        guard let start = text.range(of: "| Topic | Direction | Payload |\n") else { return [] }
        var topics: [String] = []
        for line in text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).dropFirst() {
            guard line.hasPrefix("| ") else { break }
            let cells = line.split(separator: "|", maxSplits: 2).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, let direction = cells[1].split(whereSeparator: { $0 == "," || $0 == " " }).first else { continue }
            let names = cells[0].split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            topics += names.map { "\($0) \(direction)" }
        }
        return topics
    }

    @Test func e4_everyRowIsInMqttMdsTopicTableAndEveryListedTopicIsARow() throws {
        let found = DocumentedLists.disagreements(rows: Self.rows, listed: Self.mqttMdTopics(try Self.text("docs/mqtt.md")), in: "docs/mqtt.md")
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    @Test func e4_everyRowIsInNookMqtt8WithItsShapeAndEveryListedTopicIsARow() throws {
        let listed = DocumentedLists.manPageItems(try Self.text("docs/man/nook-mqtt.8"), section: "TOPICS")
        let rows = MQTTTopicTable.rows.map { "\($0.pattern) \($0.direction.rawValue) \($0.shape.rawValue)" }
        let found = DocumentedLists.disagreements(rows: rows, listed: listed, in: "nook-mqtt(8)")
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    @Test func e4_aTopicOnOneSideOnlyIsNamedAndTheListsAreReadAsWritten() {
        let rows = ["PREFIX/DEVICE/activity in", "AWTRIX/custom/APP in"]
        #expect(DocumentedLists.differences(rows: rows, listed: rows, in: "x").isEmpty)
        #expect(DocumentedLists.differences(rows: rows + ["AWTRIX/settings in"], listed: rows, in: "x") == ["AWTRIX/settings in: a row that x does not list"])
        #expect(DocumentedLists.differences(rows: rows, listed: rows + ["AWTRIX/sound in"], in: "x") == ["AWTRIX/sound in: listed in x, but no row of the table"])
        let markdown = "| Topic | Direction | Payload |\n| --- | --- | --- |\n| `PREFIX/DEVICE/activity`, `PREFIX/all/activity` | in, QoS 1 | a `title` |\n"
            + "| `PREFIX/DEVICE/state` | out, retained | `{}` |\n\nAfter: | `AWTRIX/x` | in | |\n"
        #expect(Self.mqttMdTopics(markdown) == ["PREFIX/DEVICE/activity in", "PREFIX/all/activity in", "PREFIX/DEVICE/state out"])
        let page = ".Sh DESCRIPTION\n.Sh TOPICS\n.Bl -column\n.It Li AWTRIX/notify Ta in Ta AWTRIX\n.El\n.Sh OPTIONS\n.It Li PREFIX/x Ta in Ta native\n"
        #expect(DocumentedLists.manPageItems(page, section: "TOPICS") == ["AWTRIX/notify in AWTRIX"])
    }

    /// The subscriptions are the inbound rows' topics, in the table's order, and each of them is
    /// looked up as its row: the named topics the bridge uses are rows too.
    @Test(arguments: [nil, "awtrix_abc123"])
    func e4_a3_theSubscriptionsAndTheLookupComeFromTheRows(awtrixPrefix: String?) {
        let topics = Topics(prefix: "nook", device: "b1", awtrixPrefix: awtrixPrefix)
        let awtrix = awtrixPrefix ?? "nook/b1"
        func resolved(_ pattern: String) -> String {
            pattern.replacingOccurrences(of: "PREFIX/DEVICE", with: "nook/b1").replacingOccurrences(of: "PREFIX", with: "nook")
                .replacingOccurrences(of: "AWTRIX/", with: awtrix + "/").replacingOccurrences(of: "/APP", with: "/+")
        }
        let inbound = MQTTTopicTable.rows.filter { $0.direction == .inbound }
        #expect(topics.inbound == inbound.map { resolved($0.pattern) })
        for row in inbound {
            let topic = resolved(row.pattern).replacingOccurrences(of: "/+", with: "/weather")
            #expect(topics.kind(of: topic) != nil, "\(topic) is looked up as \(row.pattern)")
        }
        let all = Set(MQTTTopicTable.rows.map { resolved($0.pattern) })
        let named = [topics.activity, topics.command, topics.state, topics.event, topics.error, topics.availability]
        for topic in named { #expect(all.contains(topic), "\(topic) is a row") }
        #expect(named == ["nook/b1/activity", "nook/b1/command", "nook/b1/state", "nook/b1/event", "nook/b1/error", "nook/b1/availability"])
        #expect(topics.kind(of: "nook/b1/state") == nil, "an outbound topic takes nothing")
    }

    /// The bridge states itself as the owner in the operations on apps that name one, read from
    /// the protocol's table (U3); each row asks only for operations of that table.
    @Test func u3_theAppOperationsTheBridgeOwnsAreReadFromTheProtocolsTable() {
        #expect(MQTTBridge.ownedAppOperations == [.appSet, .appSetAll, .appRemove])
        for name in MQTTBridge.ownedAppOperations { #expect(name.entry.fields.contains("sender"), "\(name.rawValue) names an owner") }
        let custom = MQTTTopicTable.rows.first { $0.pattern == "AWTRIX/custom/APP" }
        #expect(custom.map { MQTTBridge.ownedAppOperations.isSubset(of: $0.asks) } == true)
        let command = MQTTTopicTable.rows.first { $0.pattern == "PREFIX/DEVICE/command" }
        #expect(command?.asks == [.dismiss, .cancel, .cancelAll, .suspend, .resume, .home], "what the command topic takes, as nook-mqtt(8) lists it")
        #expect(MQTTTopicTable.rows.filter { $0.direction == .outbound }.allSatisfy { $0.asks.isEmpty })
    }
}
