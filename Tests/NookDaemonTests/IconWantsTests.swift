import NookActivities
import NookProtocol
import NookTestSupport
import Testing
@testable import NookDaemon

/// The LaMetric ids nookd finds in no icon directory, told to an icon fetcher (M3): only ids,
/// only while one listens, each once in ten minutes, and the answer says the fetcher was asked.
@Suite("M3 icons wanted")
struct IconWantsTests {
    @Test func m3_onlyALaMetricIDIsAnIconToFetch() {
        for (name, id) in [("1234", "1234"), ("i1234", "1234"), ("a7", "7"), ("123456789", "123456789")] {
            #expect(IconWantedMessage.lametricID(name) == id, "\(name)")
        }
        for name in ["heat", "a", "i", "1234a", "1234567890", "x1234", "", "12.5", "-1", "١٢", "0", "0001", "a01"] {
            #expect(IconWantedMessage.lametricID(name) == nil, "\(name)")
        }
        let message = IconWantedMessage(icon: "a1234", id: "1234")
        #expect(IconWantedMessage(json: message.json) == message)
        #expect(IconWantedMessage(json: .object([("event", .string("icon-wanted")), ("icon", .string("x")), ("id", .string("../x"))])) == nil)
    }

    @Test func m3_anIDIsToldOnceInTenMinutesOnlyWhileAFetcherListensAndAgainToANewOne() async {
        let clock = ManualClock()
        let wants = IconWants(clock: clock)
        wants.want("1234")  // nobody listens: nothing is kept for later
        /// What a first fetcher hears of these wants, its stream gone after.
        func firstFetcher() async -> [IconWantedMessage] {
            var heard = wants.subscribe().makeAsyncIterator()
            wants.want("1234")
            wants.want("a1234")  // the same file
            wants.want("heat")  // not an id
            clock.advance(by: .seconds(599))
            wants.want("i1234")
            wants.want("5678")
            clock.advance(by: .seconds(2))
            wants.want("1234")
            // A second subscriber beside it lifts neither the ten minutes nor the bound.
            var beside = wants.subscribe().makeAsyncIterator()
            wants.want("5678")
            wants.want("42")
            #expect(await beside.next() == IconWantedMessage(icon: "42", id: "42"))
            var told: [IconWantedMessage] = []
            for _ in 0..<4 { if let message = await heard.next() { told.append(message) } }
            return told
        }
        #expect(await firstFetcher() == [IconWantedMessage(icon: "1234", id: "1234"), IconWantedMessage(icon: "5678", id: "5678"),
                                         IconWantedMessage(icon: "1234", id: "1234"), IconWantedMessage(icon: "42", id: "42")])
        // A fetcher that subscribes when none listens (started again) hears an id told to the last one.
        var again = wants.subscribe().makeAsyncIterator()
        wants.want("5678")
        #expect(await again.next() == IconWantedMessage(icon: "5678", id: "5678"))
    }

    @Test func m3_theAnswerSaysTheFetcherWasAskedOnlyWhenOneListens() async throws {
        let clock = ManualClock()
        let wants = IconWants(clock: clock)
        let policy = IconPolicy(directories: [], wants: wants)
        let asked = NookActivity(title: "Door", systemImage: "1234")
        let unknown = "unknown icon '1234': the card shows the generic glyph; 'nookctl icons' lists the known names"
        #expect(policy.said(asked: asked, drawn: try policy.checked(asked)) == unknown)
        var listening = wants.subscribe().makeAsyncIterator()
        #expect(policy.said(asked: asked, drawn: try policy.checked(asked)) == unknown + "; the icon fetcher was asked for 1234 (nook-http's log says if it cannot be fetched)")
        var withFallback = NookActivity(title: "Door", systemImage: "a77")
        withFallback.iconFallback = "bell"
        let bell = try policy.checked(withFallback)
        #expect(policy.said(asked: withFallback, drawn: bell)?.hasSuffix("the card shows 'bell'; the icon fetcher was asked for 77 (nook-http's log says if it cannot be fetched)") == true)
        #expect(policy.said(asked: NookActivity(title: "x", systemImage: "clock"), drawn: NookActivity(title: "x", systemImage: "clock")) == nil)
        // Past the bound of ids in ten minutes, an id is not asked for, and the answer says so.
        // A fetcher that keeps up (one that does not has its oldest ids dropped, and asked again).
        for id in 2...IconWants.remembered {
            wants.want("\(id + 10_000)")
            _ = await listening.next()
        }
        let late = NookActivity(title: "Late", systemImage: "99999")
        #expect(policy.said(asked: late, drawn: try policy.checked(late))?.hasSuffix("the icon fetcher was not asked for 99999: 1024 ids were asked in the last ten minutes") == true)
        clock.advance(by: .seconds(601))
        #expect(policy.said(asked: late, drawn: try policy.checked(late))?.hasSuffix("the icon fetcher was asked for 99999 (nook-http's log says if it cannot be fetched)") == true)
    }

    /// A fetcher that does not keep up loses the oldest ids of its stream; they are asked again.
    @Test func m3_anIDAFullStreamDroppedIsAskedAgain() async {
        let wants = IconWants(clock: ManualClock())
        let stream = wants.subscribe()
        for id in 1...300 { wants.want("\(id)") }
        wants.want("1")  // dropped from the stream: asked again
        wants.want("299")  // still in it: not
        var heard: [String] = []
        for await message in stream {
            heard.append(message.id)
            if heard.count == 256 { break }
        }
        #expect(heard.first == "46" && heard.last == "1" && !heard.dropLast().contains("1"), "\(heard.prefix(3)) … \(heard.suffix(3))")
    }
}
