import Foundation
import NookActivities
@testable import NookDaemon
import NookProtocol
import NookTestSupport
import Testing

/// A1: apps in the journal, in process: each set is the app's whole record again, a removal
/// ends it, a rewrite keeps only the live ones, and a damaged app record is damage like any.
@Suite("A1 apps in the journal")
struct AppJournalTests {
    let wall = TestSeconds()

    func entry(_ name: String, _ text: String, setAt: Double, arrival: UInt64) -> NookAppShelf.Entry {
        var app = NookApp(name: name, content: .fragments([.init(text, tint: .named(.red))]), chart: NookApp.Chart(.line, [1, 2]),
                          lifetime: .seconds(60), lifetimeMode: .stale)
        app.sender = NookSender(uid: 1000, pid: 42, name: "hass", relayed: true)
        return NookAppShelf.Entry(app: app, setAt: setAt, arrival: arrival)
    }

    @Test func a1_setsUpdatesAndRemovalsSurviveARestartAndARewrite() async throws {
        let scratch = Scratch()
        let path = scratch.path + "/journal"
        let first = ActivityJournal(path: path, warn: { _ in }, wallClock: wall.clock)
        #expect(first.recover().apps.isEmpty)
        first.appSet(entry("weather", "21 °C", setAt: 1000, arrival: 1))
        first.appSet(entry("bus", "Bus 12", setAt: 1001, arrival: 2))
        first.appSet(entry("weather", "22 °C", setAt: 1002, arrival: 1))
        first.appRemoved("bus")
        first.appRemoved("never set")
        await first.finish()

        // The second start reads the log, then rewrites it with what is live; the third reads
        // that rewrite.
        for round in 1...2 {
            let journal = ActivityJournal(path: path, warn: { _ in }, wallClock: wall.clock)
            let recovery = journal.recover()
            #expect(recovery.warnings.isEmpty, "round \(round): \(recovery.warnings)")
            #expect(recovery.apps == [entry("weather", "22 °C", setAt: 1002, arrival: 1)], "round \(round)")
            await journal.finish()
        }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("Bus 12") && !text.contains("21 °C"), "a rewrite keeps only the live app's last record: \(text)")
    }

    /// An array's apps (`app-set-all`) are one record: a log cut anywhere restores all of them
    /// or none, never a part (a crash or a power cut in the middle of its write).
    @Test func a1_a3_anArraysAppsAreOneRecordSoACutLogRestoresAllOrNone() async throws {
        let scratch = Scratch()
        let path = scratch.path + "/journal"
        let array = [entry("W0", "0", setAt: 1000, arrival: 1), entry("W1", "1", setAt: 1000, arrival: 2), entry("W2", "2", setAt: 1000, arrival: 3)]
        let journal = ActivityJournal(path: path, warn: { _ in }, wallClock: wall.clock)
        _ = journal.recover()
        journal.appsSet(array)
        await journal.finish()
        let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let lines = whole.split(separator: 0x0A)
        let record = try #require(lines.last)
        #expect(lines.filter { String(decoding: $0, as: UTF8.self).contains("W") }.count == 1, "one record holds the array")
        let recordStart = whole.count - record.count - 1
        var restored: Set<Int> = []
        // Every fifth byte of the record, and its last few (the newline, the JSON's end).
        for cut in Set(Array(stride(from: recordStart, through: whole.count, by: 5)) + Array(whole.count - 3...whole.count)).sorted() {
            let copy = scratch.path + "/cut-\(cut)"
            #expect(FileManager.default.createFile(atPath: copy, contents: Data(whole[..<cut])))
            let reader = ActivityJournal(path: copy, warn: { _ in }, wallClock: wall.clock)
            let apps = reader.recover().apps
            await reader.finish()
            #expect(apps.isEmpty || apps == array, "cut at \(cut): \(apps.map(\.app.name))")
            restored.insert(apps.count)
        }
        #expect(restored == [0, 3], "the whole log restores the array, a cut one nothing: \(restored)")

        // A rewrite keeps them, each then a record of its own; an update of one replaces only it.
        let again = ActivityJournal(path: path, warn: { _ in }, wallClock: wall.clock)
        #expect(again.recover().apps == array)
        again.appSet(entry("W1", "one", setAt: 1001, arrival: 2))
        await again.finish()
        let last = ActivityJournal(path: path, warn: { _ in }, wallClock: wall.clock)
        #expect(last.recover().apps == [array[0], entry("W1", "one", setAt: 1001, arrival: 2), array[2]])
        await last.finish()
    }

    @Test func a1_aDamagedAppRecordIsNamedAsDamage() {
        #expect(JournalRecord.decode(Array(#"00000000 {"app":{"name":"x","text":"t"}}"#.utf8)).isFailure)
        let body = JSONValue.object([("app", .object([("name", .string("x")), ("text", .string(""))])), ("setAt", .number(1)), ("arrival", .number(1))])
        let line = CRC32.line(body).dropLast()
        guard case .failure(let damage) = JournalRecord.decode(line) else {
            Issue.record("an app with empty text read as a record")
            return
        }
        #expect(damage.description.contains("app:"), "\(damage)")
        let good = JournalRecord.appSet(entry("weather", "21 °C", setAt: 5, arrival: 3)).encoded().dropLast()
        guard case .success(.appSet(let read)) = JournalRecord.decode(good) else {
            Issue.record("an app record did not read back")
            return
        }
        #expect(read == entry("weather", "21 °C", setAt: 5, arrival: 3))
    }
}

extension Result {
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
