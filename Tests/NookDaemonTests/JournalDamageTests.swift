import Foundation
import NookActivities
@testable import NookDaemon
import NookProtocol
import NookTestSupport
import Testing

/// J1: a record damaged in the middle of a real journal is reported by what it held (its kind,
/// and for an `app-set-all` its apps), not by how many of the shortest record its bytes could
/// have held.
@Suite("J1 a damaged record is named by what it held")
struct JournalDamageTests {
    let wall = TestSeconds()

    func app(_ name: String) -> NookAppShelf.Entry {
        NookAppShelf.Entry(app: NookApp(name: name, content: .text("\(name) 1234 W")), setAt: 1000, arrival: 1)
    }

    /// A journal nookd's own writer wrote, one record of each kind, and a card after them all
    /// so that every one of them is in the middle; the lines in order, without their newlines.
    func realJournal(_ scratch: Scratch) async throws -> (path: String, lines: [[UInt8]], a: NookActivityID, b: NookActivityID) {
        let path = scratch.path + "/journal"
        let journal = ActivityJournal(path: path, warn: { _ in }, wallClock: wall.clock)
        _ = journal.recover()
        let a = NookActivity(title: "Doorbell")
        let b = NookActivity(title: "Build finished")
        journal.added(a, module: "default")
        journal.shown(a.id)
        journal.snoozed(a, module: "default", until: 2000)
        journal.unsnoozed(a.id)
        journal.added(b, module: "default")
        journal.ended(b.id)
        journal.appSet(app("weather"))
        journal.appsSet((0..<64).map { app("power\($0)") })
        journal.appRemoved("weather")
        journal.added(NookActivity(title: "After them all"), module: "default")
        await journal.finish()
        let lines = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))).split(separator: 0x0A).map(Array.init)
        try #require(lines.count == 10, "\(lines.map { String(decoding: $0.prefix(60), as: UTF8.self) })")
        return (path, lines, a.id, b.id)
    }

    func recoveryWarning(_ lines: [[UInt8]], in scratch: Scratch, name: String) async throws -> String {
        let copy = scratch.path + "/" + name
        #expect(FileManager.default.createFile(atPath: copy, contents: Data(lines.flatMap { $0 + [0x0A] })))
        let reader = ActivityJournal(path: copy, warn: { _ in }, wallClock: wall.clock)
        let warnings = reader.recover().warnings
        await reader.finish()
        return try #require(warnings.first)
    }

    @Test func j1_aDamagedMiddleRecordOfEachKindIsReportedByWhatItHeld() async throws {
        let scratch = Scratch()
        let (_, lines, a, b) = try await realJournal(scratch)
        let held = [
            "a card's arrival or update (\(a))", "a card's showing (\(a))", "a card's snooze (\(a))", "the end of a card's snooze (\(a))",
            "a card's arrival or update (\(b))", "a card's end (\(b))", "an app set or updated (weather)",
            "an app-set of 64 apps (power0, power1, power2 and 61 more)", "an app's removal (weather)",
        ]
        for (index, what) in held.enumerated() {
            // A byte of its checksum changed: the checksum fails, the text still parses.
            var changed = lines
            changed[index][3] = changed[index][3] == UInt8(ascii: "7") ? UInt8(ascii: "8") : UInt8(ascii: "7")
            let warning = try await recoveryWarning(changed, in: scratch, name: "changed-\(index)")
            let prefix = "line \(index + 1) is damaged (checksum mismatch): \(lines[index].count + 1) bytes from byte "
            #expect(warning.contains(prefix), "\(warning)")
            #expect(warning.contains("they held one record of \(lines[index].count + 1) bytes: \(what), by its text, lost; "
                                         + "the \(lines.count - index - 1) after them are not used; kept the \(index) records before it"), "\(warning)")
            #expect(!warning.contains("up to"), "\(warning)")

            // Its second half gone (overwritten): the JSON no longer parses; its opening still
            // says its kind, and an array's openings its apps.
            var cut = lines
            let kept = min(lines[index].count - 2, lines[index].count / 2 + 20)
            cut[index] = Array(lines[index].prefix(kept)) + Array(repeating: UInt8(ascii: "#"), count: lines[index].count - kept)
            let cutWarning = try await recoveryWarning(cut, in: scratch, name: "cut-\(index)")
            let kind = index == 7 ? "an app-set of " : what.components(separatedBy: " (").first ?? what
            #expect(cutWarning.contains("they held one record of \(lines[index].count + 1) bytes: \(kind)"), "\(cutWarning)")
            #expect(!cutWarning.contains("up to"), "\(cutWarning)")
        }
        var array = lines
        array[7] = Array(lines[7].prefix(lines[7].count / 2))
        let arrayWarning = try await recoveryWarning(array, in: scratch, name: "array-half")
        #expect(arrayWarning.contains("an app-set of 32 apps (power0, power1, power2 and 29 more), by what is left of its text"), "\(arrayWarning)")
    }

    @Test func j1_aMiddleLineWithNothingOfARecordLeftSaysItsKindCannotBeRead() async throws {
        let scratch = Scratch()
        let (_, lines, _, _) = try await realJournal(scratch)
        var damaged = lines
        damaged[7] = Array(repeating: UInt8(ascii: "x"), count: 300)
        let warning = try await recoveryWarning(damaged, in: scratch, name: "noise")
        #expect(warning.contains("they held one line of 301 bytes, whose kind of record cannot be read from it, lost"), "\(warning)")
        // Two damaged lines in a row are each named.
        damaged[6][3] = damaged[6][3] == UInt8(ascii: "7") ? UInt8(ascii: "8") : UInt8(ascii: "7")
        let two = try await recoveryWarning(damaged, in: scratch, name: "two")
        #expect(two.contains("they held 2 lines: one record of \(lines[6].count + 1) bytes: an app set or updated (weather)"), "\(two)")
    }

    /// A span of many damaged lines (something else than nookd wrote over the journal) is said
    /// by its first lines and a count; what recovery keeps of them is that, not a description
    /// of each of hundreds of thousands of lines held all at once while nookd starts.
    @Test func j1_aSpanOfManyDamagedLinesIsSaidByItsFirstLinesAndACount() throws {
        let lines = 200_000
        let bytes = Array(repeating: Array("{\n".utf8), count: lines).flatMap { $0 }
        let damage = try #require(JournalScan(bytes).damage)
        #expect(damage.heldLines == lines)
        #expect(damage.held.count <= JournalScan.Damage.heldShown, "\(damage.held.count) descriptions kept")
        let said = damage.description(keptRecords: 0)
        #expect(said.contains("it held \(lines) lines: one line of 2 bytes, whose kind of record cannot be read from it; "), "\(said.prefix(300))")
        #expect(said.contains("; and \(lines - JournalScan.Damage.heldShown) more lines"), "\(said.prefix(400))")
        #expect(said.utf8.count < 2000, "\(said.utf8.count) bytes")
    }
}
