import NookActivities
import Testing

@Suite struct IconNameTests {
    @Test func r3_aMisspeltIconNameIsWarnedAboutWithTheNearestKnownName() throws {
        let warning = try #require(NookIconNames.warning(for: "hamer"))
        #expect(warning.contains("'hamer'") && warning.contains("did you mean 'hammer'?"))
        #expect(warning.contains("nookctl icons"), "the sender is told where the names are listed")
        #expect(!warning.contains("Sources/") && !warning.contains(".swift"), "no message points a user at a source file")
    }

    @Test func r3_aNameFarFromEveryKnownOneIsWarnedAboutWithoutAGuess() throws {
        let warning = try #require(NookIconNames.warning(for: "zzzzzzzzzzzz"))
        #expect(!warning.contains("did you mean"))
    }

    @Test func r3_knownNamesAndImageFilesGetNoWarning() {
        #expect(NookIconNames.warning(for: "hammer") == nil)
        #expect(NookIconNames.warning(for: "doorbell.png") == nil)
        #expect(NookIconNames.warning(for: "/usr/share/nook/icons/door") == nil)
    }

    @Test func theKnownNamesAreSortedAndDistinct() {
        #expect(NookIconNames.all == NookIconNames.all.sorted())
        #expect(Set(NookIconNames.all).count == NookIconNames.all.count)
    }
}
