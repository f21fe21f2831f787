import Foundation
import NookSound
import Testing

/// The built-in chimes: the names senders use, each a short melody (B2).
@Suite("B2 chimes")
struct ChimeTests {
    /// The freedesktop sound naming spec's names a notification sender sets for messages,
    /// alarms, completion and devices.
    static let freedesktop = [
        "message-new-instant", "message-new-email", "message", "bell", "complete", "alarm-clock-elapsed",
        "dialog-information", "dialog-warning", "dialog-error", "dialog-question", "phone-incoming-call",
        "service-login", "service-logout", "power-plug", "power-unplug", "device-added", "device-removed",
        "camera-shutter", "screen-capture", "battery-low", "network-connectivity-established",
        "network-connectivity-lost", "window-attention", "trash-empty", "system-ready", "completion-success",
        "completion-fail", "desktop-login", "desktop-logout", "suspend-error",
    ]

    /// demetriek's `NotificationSound` and `AlarmSound` values: LaMetric's sound ids.
    static let lametric = [
        "bicycle", "car", "cash", "cat", "dog", "dog2", "energy", "knock-knock", "letter_email", "lose1", "lose2",
        "negative1", "negative2", "negative3", "negative4", "negative5", "notification", "notification2",
        "notification3", "notification4", "open_door", "positive1", "positive2", "positive3", "positive4",
        "positive5", "positive6", "statistic", "thunder", "water1", "water2", "win", "win2", "wind", "wind_short",
    ] + (1...13).map { "alarm\($0)" }

    @Test func b2_everyNameASenderUsesHasAChime() throws {
        for name in Self.freedesktop + Self.lametric + ["alarm", "doorbell", "siren", "friends"] {
            #expect(Chimes.names.contains(name), "\(name) is not listed")
            let melody = try #require(Chimes.melody(named: name), "\(name) has no melody")
            #expect(melody.name == name)
        }
        #expect(Chimes.names == Chimes.names.sorted())
        #expect(Set(Chimes.names).count == Chimes.names.count)
    }

    @Test func b2_everyChimeParsesAndIsShort() throws {
        for name in Chimes.names {
            let melody = try #require(Chimes.melody(named: name), "\(name) does not parse")
            #expect(!melody.tones.isEmpty)
            let chime = Chimes.chime(for: name) ?? name
            let limit = ["alarm", "siren", "phone"].contains { chime.hasPrefix($0) } ? 3_000 : 2_000
            #expect(melody.milliseconds <= limit, "\(name) lasts \(melody.milliseconds) ms")
            // In a piezo's comfortable range, and every note long enough to be heard.
            for tone in melody.tones where !tone.isRest {
                #expect((200...4_200).contains(tone.frequency), "\(name): \(tone)")
                #expect(tone.milliseconds >= 20, "\(name): \(tone)")
            }
        }
    }

    @Test func b2_theChimesSoundDifferent() throws {
        let chimes = Set(Chimes.names.compactMap { Chimes.chime(for: $0) })
        var seen: [[Tone]: String] = [:]
        for chime in chimes.sorted() {
            let tones = try #require(Chimes.melody(named: chime)).tones
            #expect(seen[tones] == nil, "\(chime) sounds like \(seen[tones] ?? "")")
            seen[tones] = chime
        }
        #expect(chimes.count >= 25)
    }

    @Test func b2_aLongerFreedesktopNameFallsBackToItsStem() {
        #expect(Chimes.chime(for: "complete-download") == "complete")
        #expect(Chimes.chime(for: "message-new-instant-work") == "message-new-instant")
        #expect(Chimes.chime(for: "window-attention-active") == "window-attention")
        #expect(Chimes.chime(for: "Dialog-Warning") == "dialog-warning")
        #expect(Chimes.chime(for: "positive1") == "complete")
        #expect(Chimes.chime(for: "no-such-sound") == nil)
        #expect(Chimes.chime(for: "") == nil)
        #expect(Chimes.melody(named: "kazoo") == nil)
    }

    /// docs/sound.md's chime table lists every name with the chime it plays, and nothing else.
    @Test func b2_theDocsListEveryNameAndItsChime() throws {
        let file = #filePath
        let root = String(file[..<file.range(of: "/Tests/")!.lowerBound])
        let text = try String(contentsOfFile: root + "/docs/sound.md", encoding: .utf8)
        // The tables under "### Chimes" only: other sections of the page have tables of their own.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex(of: "### Chimes"), "docs/sound.md has no '### Chimes'")
        let end = lines[(start + 1)...].firstIndex { $0.hasPrefix("## ") || $0.hasPrefix("### ") } ?? lines.endIndex
        var documented: [String: String] = [:]
        for line in lines[start..<end] where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2 else { continue }
            let plays = cells[1].hasPrefix("`") ? cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")) : nil
            for name in cells[0].split(separator: ",") {
                let trimmed = name.trimmingCharacters(in: CharacterSet(charactersIn: "` "))
                documented[trimmed] = plays ?? trimmed
            }
        }
        var expected: [String: String] = [:]
        for name in Chimes.names { expected[name] = Chimes.chime(for: name) }
        #expect(Set(documented.keys).subtracting(expected.keys).isEmpty, "documented but not built")
        #expect(Set(expected.keys).subtracting(documented.keys).isEmpty, "built but not documented")
        for (name, chime) in expected where documented[name] != nil {
            #expect(documented[name] == chime, "\(name) plays \(chime), the docs say \(documented[name] ?? "")")
        }
    }

    /// A name with a control character in it (a NUL a sender's body carried) is said to have
    /// one, where it is, and not said back: the answer and the log would carry it raw.
    @Test func b4_aNameWithAControlCharacterIsRefusedNamingItNotEchoingIt() {
        for (text, at) in [("al\u{0}arm", 3), ("\u{1B}]0;title\u{7}", 1)] {
            do throws(SoundError) {
                _ = try SoundText.melody(text)
                Issue.record("\(text.debugDescription) was read as a melody")
            } catch {
                #expect(error.message.contains("a control character") && error.message.contains("at character \(at)"), "\(error.message)")
                #expect(!error.message.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(error.message.debugDescription)")
            }
        }
    }

    /// A long name that is no chime is said back in part, not whole (up to 4096 characters come).
    @Test func b4_aLongNameThatIsNoChimeIsSaidBackInPart() {
        do throws(SoundError) {
            _ = try SoundText.melody(String(repeating: "a", count: 4000))
            Issue.record("read as a melody")
        } catch {
            #expect(error.message.hasPrefix("is not a chime Nook has ('\(String(repeating: "a", count: 60))…'"), "\(error.message.prefix(200))")
            #expect(error.message.count < 200)
        }
    }
}
