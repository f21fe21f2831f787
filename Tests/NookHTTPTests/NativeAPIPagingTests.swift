import Foundation
import NookActivities
import NookHTTP
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// H1's `GET /api/v1/activities` a page at a time: `limit` (100 unless asked, at most 1,000)
/// after `after`, the page before's `next`, also named by a `Link` header. nook-http holds one
/// page of nookd's, so a queue of 100,000 costs a page, not the queue.
@Suite("H1 the native listing in pages", .serialized, .ownThreads)
struct NativeAPIPagingTests {
    /// Sends `count` enqueues pipelined in bursts and reads their answers: a full queue fast.
    func fill(_ nookd: NativeAPINookd, count: Int, title: (Int) -> String, subtitle: String? = nil) throws -> [String] {
        let client = try NookClient(path: nookd.socket)
        client.readTimeout = TestBounds.duration(.seconds(60))
        var ids: [String] = []
        ids.reserveCapacity(count)
        var sent = 0
        while sent < count {
            let burst = min(1000, count - sent)
            var lines = ""
            for index in sent..<(sent + burst) {
                let card = NookActivity(title: title(index), subtitle: subtitle, dwell: .seconds(3600))
                lines += Request(id: .number(Double(index)), operation: .enqueue(card, module: nil, wait: false)).encoded() + "\n"
            }
            try client.sendRaw(Array(lines.utf8))
            for _ in 0..<burst {
                let line = try #require(try client.readLine())
                guard case .success(_, let result) = try ResponseLine.decode(line) else { throw TestFailure("refused: \(String(decoding: line, as: UTF8.self))") }
                ids.append(try #require(result["id"]?.text))
            }
            sent += burst
        }
        return ids
    }

    func listed(_ answer: APIAnswer) -> [String] {
        answer.json["activities"]?.items.compactMap { $0["activity"]?["id"]?.text } ?? []
    }

    @Test func h1_theListingComesInPagesAndCardsEndingBetweenThemAreNeitherSkippedNorRepeated() throws {
        let nookd = try NativeAPINookd()
        _ = try nookd.request(.suspend(module: nil))
        let api = NativeAPIClient(socket: nookd.socket)
        let all = try fill(nookd, count: 45, title: { "Card \($0)" })
        var seen: [String] = [], ended: Set<String> = []
        var after: String?
        var pages = 0
        repeat {
            let answer = try api.send("GET", "/api/v1/activities", query: [("limit", "10")] + (after.map { [("after", $0)] } ?? []))
            #expect(answer.status == 200, "\(answer.json)")
            let onPage = listed(answer)
            #expect(onPage.count <= 10)
            seen += onPage
            pages += 1
            after = answer.json["next"]?.text
            if let after {
                let encoded = after.replacingOccurrences(of: ":", with: "%3A")
                #expect(answer.header("Link") == "</api/v1/activities?after=\(encoded)&limit=10>; rel=\"next\"")
                // The last card of the page, one of its others and one not listed yet end.
                for id in [onPage.last, onPage.first, all.first { !seen.contains($0) && !ended.contains($0) }].compactMap({ $0 }) {
                    #expect(try api.send("DELETE", "/api/v1/activities/" + id).status == 200)
                    ended.insert(id)
                }
            } else {
                #expect(answer.header("Link") == nil)
            }
        } while after != nil
        #expect(pages >= 4)
        #expect(Set(seen).count == seen.count, "a card on two pages")
        #expect(Set(all).subtracting(ended).subtracting(seen).isEmpty, "a card held throughout on no page")

        // A page's default size, its bounds and a cursor nookd never gave.
        #expect(listed(try api.send("GET", "/api/v1/activities")).count == Set(all).subtracting(ended).count)
        for limit in ["0", "1001", "ten"] {
            let refused = try api.send("GET", "/api/v1/activities", query: [("limit", limit)])
            #expect(refused.status == 422 && refused.error.field == "limit", "\(limit): \(refused.json)")
        }
        let forged = try api.send("GET", "/api/v1/activities", query: [("after", "page 2")])
        #expect(forged.status == 422 && forged.error.field == "after", "\(forged.json)")
    }

    @Test(.notUnderQEMUUser("filling and paging a queue of 100,000 emulated outlasts a 15-minute bound there; amd64 runs it"),
          .oncePerTestRun("filling a queue of 100,000 cards is most of its time"))
    func h1_aQueueOf100000ListsInPagesOfBoundedSize() throws {
        let nookd = try NativeAPINookd(config: "[queue]\ncapacity = 100000\n")
        _ = try nookd.request(.suspend(module: nil))
        let api = NativeAPIClient(socket: nookd.socket)
        let all = try fill(nookd, count: 100_000, title: { "Card \($0) of a very full queue" })
        let first = try api.send("GET", "/api/v1/activities")
        #expect(listed(first) == Array(all.prefix(100)))
        #expect(first.response.body.count < 40_000, "a default page of small cards is \(first.response.body.count) bytes")
        let most = try api.send("GET", "/api/v1/activities", query: [("limit", "1000")])
        #expect(listed(most).count == 1000)
        #expect(most.response.body.count < 400_000, "\(most.response.body.count) bytes")
        // One card found behind every other, nookd's list read a page at a time.
        let lastOne = try api.send("GET", "/api/v1/activities/" + (all.last ?? ""))
        #expect(lastOne.status == 200 && lastOne.json["state"]?.text == "pending", "\(lastOne.json)")
        // Large cards: a page is cut at nookd's answer of 1 MiB whatever the limit.
        let big = try NativeAPINookd(config: "[queue]\ncapacity = 1000\n")
        _ = try big.request(.suspend(module: nil))
        let long = String(repeating: "🔔", count: NookActivity.Limits.subtitleCharacters)
        _ = try fill(big, count: 600, title: { "Card \($0) " + String(long.prefix(NookActivity.Limits.titleCharacters - 10)) }, subtitle: long)
        let cut = try NativeAPIClient(socket: big.socket).send("GET", "/api/v1/activities", query: [("limit", "1000")])
        #expect(listed(cut).count < 600 && cut.json["next"]?.text != nil)
        #expect(cut.response.body.count < NookProtocol.answerPageBytes + 64 * 1024, "\(cut.response.body.count) bytes")
    }
}
