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

    /// The name is quoted back on one line and bounded: the warning is logged and published by
    /// the bridges, and a line break in it would start a log line the sender wrote.
    @Test func r3_anUnknownIconNameIsQuotedOnOneLineAndBounded() throws {
        let forged = try #require(NookIconNames.warning(for: "x\n2026-11-29T07:00:00+0000 error nookd: forged\u{1B}[2J\u{202E}"))
        #expect(!forged.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{202E}" }, "\(forged.debugDescription)")
        #expect(forged.hasPrefix("unknown icon 'x\\u{a}2026-11-29T07:00:00+0000 error nookd: forged\\u{1b}[2J\\u{202e}': "), "\(forged)")
        let long = try #require(NookIconNames.warning(for: String(repeating: "z", count: 4096)))
        #expect(long.utf8.count < 400 && long.contains("…'"), "\(long.utf8.count) bytes")
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
