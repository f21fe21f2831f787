import NookActivities
import NookProtocol
import Testing

/// `status`'s apps member (A1, A2): written and read back, and additive: a status from a nookd
/// without apps still reads, with the member absent.
@Suite("A3 status names the apps")
struct StatusAppsTests {
    static let display = StatusAnswer.Display(backend: "mock", mode: "1280x400", rotation: 0, theme: "dark", refreshHz: 60)

    func status(apps: StatusAnswer.Apps?) -> StatusAnswer {
        StatusAnswer(foreground: nil, display: Self.display, home: "clock", engaged: false, inputs: [], gpio: nil, modules: [], connections: 1, apps: apps)
    }

    @Test func a3_theAppsMemberIsWrittenAndReadBack() throws {
        let apps = StatusAnswer.Apps(count: 2, showing: "weather", rotation: .turning)
        let line = status(apps: apps).json.serialized
        #expect(line.contains(#""apps":{"count":2,"showing":"weather","rotation":"turning"}"#), "\(line)")
        #expect(try StatusAnswer(json: JSONValue.parse(Array(line.utf8))).apps == apps)
        let held = StatusAnswer.Apps(count: 1, showing: nil, rotation: .card)
        #expect(status(apps: held).json.serialized.contains(#""apps":{"count":1,"showing":null,"rotation":"card"}"#))
        #expect(try StatusAnswer(json: status(apps: held).json).apps == held)
    }

    @Test func a3_c1_aStatusWithoutAppsStillReadsAndANewerRotationWordDoesNotBreakIt() throws {
        var members: [(String, JSONValue)] = []
        if case .object(let all) = status(apps: nil).json { members = all.filter { $0.0 != "apps" } }
        let old = try StatusAnswer(json: .object(members))
        #expect(old.apps == nil)
        #expect(old.home == "clock")
        let newer = status(apps: StatusAnswer.Apps(count: 3, showing: "bus", rotation: .engaged)).json.serialized
            .replacing(#""rotation":"engaged""#, with: #""rotation":"paused""#)
        let read = try StatusAnswer(json: JSONValue.parse(Array(newer.utf8)))
        #expect(read.apps?.count == 3 && read.apps?.showing == "bus")
    }
}
