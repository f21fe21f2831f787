#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookActivities
import NookProtocol

/// `GET /api/v1/activities` of a queue of 100,000 (`queue.capacity` at its most), read whole a
/// page of 1,000 at a time by its `next`: the milliseconds per page, and how much nook-http's
/// resident memory grew over the whole reading (one page held at a time, so about nothing).
struct ListingFigure {
    let figures: HTTPFigures
    static let cards = 100_000

    /// Fills a fresh pair's queue; returns the pair.
    func filledPair() throws -> HTTPFigures.Pair {
        let config = figures.scratch + "/listing.toml"
        try "[queue]\ncapacity = \(Self.cards)\n".write(toFile: config, atomically: true, encoding: .utf8)
        let pair = try figures.start("listing-\(getpid())", extra: ["--config", config])
        let client = try NookClient(path: pair.socket)
        _ = try client.request(Request(id: .number(1), operation: .suspend(module: nil)))
        var sent = 0
        while sent < Self.cards {
            var lines = ""
            for index in sent..<(sent + 1000) {
                let card = NookActivity(title: "Card \(index) of a full queue", dwell: .seconds(3600))
                lines += Request(id: .number(Double(index)), operation: .enqueue(card, module: nil, wait: false)).encoded() + "\n"
            }
            try client.sendRaw(Array(lines.utf8))
            for _ in 0..<1000 { _ = try client.readLine() }
            sent += 1000
        }
        return pair
    }

    /// One reading of every page: milliseconds per page, pages, and nook-http's growth in MiB.
    func round(_ pair: HTTPFigures.Pair) throws -> (pageMilliseconds: Double, pages: Int, growthMiB: Double) {
        let before = figures.daemon.rssMiB(pid: pair.server)
        let http = try HTTPBenchClient(port: pair.port)
        var after: String?
        var pages = 0, listed = 0
        let start = ContinuousClock.now
        repeat {
            let query = "limit=1000" + (after.map { "&after=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0) } ?? "")
            try http.send(Array("GET /api/v1/activities?\(query) HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
            let (status, body) = try http.response()
            guard status == 200 else { throw BenchError("GET /api/v1/activities answered \(status): \(String(decoding: body.prefix(300), as: UTF8.self))") }
            let page = try JSONValue.parse(body)
            listed += page["activities"]?.items.count ?? 0
            after = page["next"]?.text
            pages += 1
        } while after != nil && pages < 1000
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        guard listed == Self.cards else { throw BenchError("the pages listed \(listed) of \(Self.cards) cards") }
        return (seconds * 1000 / Double(pages), pages, figures.daemon.rssMiB(pid: pair.server) - before)
    }
}

func reportListingFigure(_ daemon: DaemonFigures) {
    do {
        let figures = try HTTPFigures.prepared(daemon)
        let figure = ListingFigure(figures: figures)
        let pair = try figure.filledPair()
        var growth: [Double] = []
        let perPage = try figures.rounds(3) {
            let result = try figure.round(pair)
            growth.append(result.growthMiB)
            return result.pageMilliseconds
        }
        report("http_list_100k_page_ms", perPage)
        report("http_list_100k_rss_growth_mib", Spread(rounds: growth))
        if Spread(rounds: growth).max > 8 { print("  goal not met: http_list_100k_rss_growth_mib <= 8") }
    } catch {
        print("listing figure skipped: \(error)")
    }
}
