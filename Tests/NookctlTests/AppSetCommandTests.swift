import ArgumentParser
import NookActivities
@testable import nookctl
import Testing

/// `nookctl app set` refuses a bad option naming it, before anything is sent (A1).
@Suite("A1 nookctl app set checks its options")
struct AppSetCommandTests {
    func refusal(_ arguments: [String]) -> String? {
        do {
            _ = try AppSet.parse(arguments)
            return nil
        } catch {
            return AppSet.message(for: error)
        }
    }

    /// A lifetime or a duration too long to be one is refused, never taken as none.
    @Test func a1_aLifetimeOrDurationTooLongIsRefusedNotDropped() throws {
        for option in ["--lifetime", "--duration"] {
            for text in ["999999999999999w", "99999999999999d", "100000000000000s"] {
                let problem = refusal(["weather", "--text", "21", option, text])
                #expect(problem?.contains(option) == true, "\(option) \(text): \(problem ?? "accepted")")
            }
            #expect(refusal(["weather", "--text", "21", option, "31d"])?.contains(option) == true, "past the longest")
            #expect(refusal(["weather", "--text", "21", option, "0s"])?.contains(option) == true)
            #expect(refusal(["weather", "--text", "21", option, "-5s"])?.contains(option) == true)
        }
        let app = try AppSet.parse(["weather", "--text", "21", "--lifetime", "2h", "--duration", "10s"]).app()
        #expect(app.lifetime == .seconds(7200))
        #expect(app.duration == .seconds(10))
    }

    /// An app may be an icon, a bar or a chart alone (M2): --text may be left out then, and
    /// without any of them the refusal says what would do.
    @Test func m2_anAppOfAnIconProgressOrChartAloneNeedsNoText() throws {
        #expect(try AppSet.parse(["door", "--icon", "bell"]).app().icon == "bell")
        #expect(try AppSet.parse(["door", "--progress", "0.5"]).app().progress == 0.5)
        #expect(try AppSet.parse(["door", "--chart", "1,2"]).app().chart == NookApp.Chart(.bar, [1, 2]))
        #expect(try AppSet.parse(["door", "--icon", "bell"]).app().isWordless)
        let problem = refusal(["door", "--tint", "red"])
        #expect(problem?.contains("--text is required") == true && problem?.contains("--icon") == true, "\(problem ?? "accepted")")
    }
}

