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
        for name in ["heat", "a", "i", "1234a", "1234567890", "x1234", "", "12.5", "-1", "١٢"] {
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
        let stream = wants.subscribe()
        var heard = stream.makeAsyncIterator()
        wants.want("1234")
        wants.want("a1234")  // the same file
        wants.want("heat")  // not an id
        clock.advance(by: .seconds(599))
        wants.want("i1234")
        wants.want("5678")
        clock.advance(by: .seconds(2))
        wants.want("1234")
        var told: [IconWantedMessage] = []
        for _ in 0..<3 { if let message = await heard.next() { told.append(message) } }
        #expect(told == [IconWantedMessage(icon: "1234", id: "1234"), IconWantedMessage(icon: "5678", id: "5678"),
                         IconWantedMessage(icon: "1234", id: "1234")])
        // A fetcher that subscribes anew (started again) hears an id told to the last one.
        let again = wants.subscribe()
        var heardAgain = again.makeAsyncIterator()
        wants.want("5678")
        #expect(await heardAgain.next() == IconWantedMessage(icon: "5678", id: "5678"))
    }

    @Test func m3_theAnswerSaysTheFetcherWasAskedOnlyWhenOneListens() throws {
        let wants = IconWants(clock: ManualClock())
        let policy = IconPolicy(directories: [], wants: wants)
        let asked = NookActivity(title: "Door", systemImage: "1234")
        let drawn = try policy.checked(asked)
        #expect(policy.said(asked: asked, drawn: drawn)
                == "unknown icon '1234': the card shows the generic glyph; 'nookctl icons' lists the known names")
        let listening = wants.subscribe()
        _ = listening
        #expect(policy.said(asked: asked, drawn: drawn)
                == "unknown icon '1234': the card shows the generic glyph; 'nookctl icons' lists the known names; "
                    + "the icon fetcher was asked for 1234, for what is sent after it arrives")
        var withFallback = NookActivity(title: "Door", systemImage: "a77")
        withFallback.iconFallback = "bell"
        let bell = try policy.checked(withFallback)
        #expect(policy.said(asked: withFallback, drawn: bell)?.hasSuffix("the card shows 'bell'; the icon fetcher was asked for 77, for what is sent after it arrives") == true)
        #expect(policy.said(asked: NookActivity(title: "x", systemImage: "clock"), drawn: NookActivity(title: "x", systemImage: "clock")) == nil)
    }
}
