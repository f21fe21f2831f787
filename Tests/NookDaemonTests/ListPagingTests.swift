import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// C1's `list` in pages: each page starts after the cursor of the one before, so cards that end
/// between two pages (the last one listed, the one on the glass, any other) move nothing from one
/// page to another. A card held the whole time is listed exactly once.
@Suite("C1 list pages by cursor", .serialized, .ownThreads)
struct ListPagingTests {
    func card(_ title: String, _ priority: NookActivityPriority = .normal) -> NookActivity {
        NookActivity(priority: priority, title: title, dwell: .seconds(3600))
    }

    func enqueue(_ activity: NookActivity, module: String? = nil, on daemon: DaemonProcess) throws -> NookActivityID {
        try EnqueueAnswer(json: daemon.request(.enqueue(activity, module: module, wait: false))).id
    }

    /// Two modules, a card on the glass, then cards of two priorities behind it, suspended so
    /// nothing moves but what the test does. Returns every card's id.
    func fullBoard(_ daemon: DaemonProcess) throws -> (glass: NookActivityID, all: [NookActivityID]) {
        let glass = try enqueue(card("On the glass"), on: daemon)
        try eventually("the first card on the glass") { try ListAnswer(json: daemon.request(.list(module: nil))).modules.first?.current?.id == glass }
        try daemon.request(.suspend(module: nil))
        var all = [glass]
        for index in 0..<40 { all.append(try enqueue(card("Card \(index)", index % 4 == 0 ? .high : .normal), on: daemon)) }
        for index in 0..<15 { all.append(try enqueue(card("Other \(index)"), module: "other", on: daemon)) }
        return (glass, all)
    }

    func ids(_ page: ListAnswer) -> [NookActivityID] {
        page.modules.flatMap { ($0.current.map { [$0.id] } ?? []) + $0.pending.map(\.id) }
    }

    static let twoModules = "[queue]\nmodules = [\"default\", \"other\"]\ncapacity = 1000\n"

    @Test func c1_cardsEndingBetweenPagesAreNeverSkippedNorRepeated() throws {
        let scratch = Scratch()
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", scratch.file("nook.toml", Self.twoModules)])
        defer { _ = daemon.stop() }
        let (glass, all) = try fullBoard(daemon)
        var listed: [NookActivityID] = []
        var ended: Set<NookActivityID> = []
        func end(_ id: NookActivityID) throws {
            try daemon.request(.cancel(id))
            ended.insert(id)
        }
        var page = try ListAnswer(json: daemon.request(.list(module: nil, limit: 6)))
        #expect(page.next == 6, "the first page tells a version-1 client its offset too")
        var number = 0
        while true {
            let onPage = ids(page)
            #expect(onPage.count <= 6)
            listed += onPage
            guard let text = page.cursor else { break }
            let cursor = try #require(ListCursor(text: text))
            number += 1
            // Between pages: the last card listed (where the cursor points), the first card of
            // this page, and one not listed yet end.
            if let last = onPage.last, !ended.contains(last), last != glass { try end(last) }
            if let first = onPage.first, !ended.contains(first), first != glass { try end(first) }
            if let unlisted = all.first(where: { !listed.contains($0) && !ended.contains($0) }) { try end(unlisted) }
            if number == 2 {
                // The card on the glass ends, and the next one (listed already) takes its place.
                try end(glass)
                try daemon.request(.resume(module: "default"))
                try eventually("another card on the glass") {
                    let current = try ListAnswer(json: daemon.request(.list(module: "default", limit: 1))).modules.first?.current
                    return current != nil && current?.id != glass
                }
                try daemon.request(.suspend(module: nil))
            }
            page = try ListAnswer(json: daemon.request(.list(module: nil, after: cursor, limit: 6)))
            #expect(page.next == nil, "a page asked for by cursor gives a cursor, not an offset")
        }
        #expect(number > 5, "the cards fit in too few pages for the test")
        #expect(Set(listed).count == listed.count, "listed twice: \(listed.filter { id in listed.filter { $0 == id }.count > 1 })")
        let heldThroughout = Set(all).subtracting(ended)
        let missed = heldThroughout.subtracting(listed)
        #expect(missed.isEmpty, "held the whole time, on no page: \(missed)")
        #expect(Set(listed).isSubset(of: Set(all)))
    }

    @Test func c1_nookctlsWholeListHasEveryCardOnceThoughCardsEndBetweenItsPages() throws {
        let scratch = Scratch()
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", scratch.file("nook.toml", Self.twoModules)])
        defer { _ = daemon.stop() }
        // Cards large enough that the whole list takes several pages of 1 MiB.
        let long = String(repeating: "🔔", count: NookActivity.Limits.subtitleCharacters)
        var all: [NookActivityID] = []
        try daemon.request(.suspend(module: nil))
        for index in 0..<400 {
            var activity = card("Card \(index) " + String(long.prefix(NookActivity.Limits.titleCharacters - 10)), index % 3 == 0 ? .high : .normal)
            activity.subtitle = long
            all.append(try enqueue(activity, module: index % 5 == 0 ? "other" : nil, on: daemon))
        }
        let client = try daemon.client(), lister = try daemon.client()
        var pages = 1
        var ended: Set<NookActivityID> = []
        let (whole, _) = try lister.list(module: nil) { () throws(ClientError) in
            pages += 1
            // Ahead of every page: ten cards end, among them some of those already listed.
            for id in all.filter({ !ended.contains($0) }).prefix(10) {
                _ = try client.request(Request(id: .number(1), operation: .cancel(id)))
                ended.insert(id)
            }
        }
        #expect(pages >= 3, "the cards fit in too few pages for the test")
        let listed = ids(whole)
        #expect(Set(listed).count == listed.count)
        #expect(Set(all).subtracting(ended).subtracting(listed).isEmpty, "cards held throughout are missing")
    }

    @Test func c1_aPageByOffsetStillWorksAndABadCursorOrLimitIsNamed() throws {
        let daemon = try DaemonProcess()
        defer { _ = daemon.stop() }
        try daemon.request(.suspend(module: nil))
        for index in 0..<5 { _ = try enqueue(card("Card \(index)"), on: daemon) }
        let first = try ListAnswer(json: daemon.request(.list(module: nil, limit: 2)))
        #expect(first.next == 2)
        let second = try ListAnswer(json: daemon.request(.list(module: nil, offset: 2, limit: 2)))
        #expect(second.modules.flatMap(\.pending).map(\.title) == ["Card 2", "Card 3"])
        #expect(second.next == 4)
        let client = try daemon.client()
        func refusal(_ line: String) throws -> ProtocolError? {
            try client.send(line)
            let answer = try #require(try client.readLine())
            guard case .failure(_, let error) = try ResponseLine.decode(answer) else { return nil }
            return error
        }
        #expect(try refusal(#"{"op":"list","after":"nonsense"}"#)?.field == "after")
        #expect(try refusal(#"{"op":"list","after":"1:1:65536:-:nosuchmodule"}"#)?.message.contains("nosuchmodule") == true)
        #expect(try refusal(#"{"op":"list","limit":0}"#)?.field == "limit")
        #expect(try refusal(#"{"op":"list","limit":2.5}"#)?.field == "limit")
        #expect(try refusal(#"{"op":"list","offset":2,"after":"1:-:-:-:default"}"#)?.field == "offset")
    }
}
