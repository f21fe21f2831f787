import NookActivities
@testable import NookNotify
import Testing

/// SPEC E2: each mapping rule from a Notify call to an activity.
@Suite("E2 mapping")
struct MappingTests {
    func map(_ call: NotifyCall, key: String? = "notify:1", allowPaths: Bool = true) -> NookActivity {
        NotificationMapping.activity(for: call, id: NookActivityID(), key: key, allowPaths: allowPaths).activity
    }

    @Test func e2_summaryIsTitleBodyIsSubtitleWithoutMarkup() {
        let activity = map(NotifyCall(summary: "Backup complete", body: "<b>42</b> files &amp; 3 folders"))
        #expect(activity.title == "Backup complete")
        #expect(activity.subtitle == "42 files & 3 folders")
        #expect(activity.coalescingKey == "notify:1")
        #expect(map(NotifyCall(summary: "Only a title", body: " <i></i> ")).subtitle == nil)
    }

    @Test func e1_aCallWaitingForNookdKeepsOnlyWhatIsReadAndMapsTheSame() {
        let long = String(repeating: "x", count: 1024)
        var hints: [String: HintValue] = ["urgency": .integer(2), "value": .integer(30), "category": .string("transfer"),
                                          "transient": .boolean(true), "resident": .boolean(true), "x-dunst-stack-tag": .string("vol")]
        for number in 0..<58 { hints["x-extra-\(number)"] = .string(long) }
        let actions = ["reply", long, "default", "Open"] + (0..<62).flatMap { ["a\($0)", long] }
        let call = NotifyCall(appName: "app", summary: "Copying", actions: actions, hints: hints, expireTimeout: 0)
        let compacted = call.compacted()
        #expect(compacted.hints.count == 6 && compacted.actions == ["default", ""])
        #expect(compacted.hasDefaultAction && compacted.isResident && compacted.stackTag == "vol" && compacted.urgency == 2)
        let id = NookActivityID()
        #expect(NotificationMapping.activity(for: compacted, id: id, key: "k", allowPaths: true)
                == NotificationMapping.activity(for: call, id: id, key: "k", allowPaths: true))
        #expect(!NotifyCall(summary: "a", actions: ["reply", "Reply"]).compacted().hasDefaultAction)
    }

    @Test func e3_aDefaultActionGivesTheCardAnActionAndOtherActionsDoNot() {
        #expect(map(NotifyCall(summary: "a", actions: ["default", "Open"])).hasAction)
        #expect(map(NotifyCall(summary: "a", actions: ["reply", "Reply", "default", "Open"])).hasAction)
        #expect(!map(NotifyCall(summary: "a", actions: ["reply", "Reply"])).hasAction)
        #expect(!map(NotifyCall(summary: "a", actions: ["default"])).hasAction, "a key without its label is not a pair")
        #expect(!map(NotifyCall(summary: "a")).hasAction)
    }

    @Test func e2_u4_theTransientHintMarksTheActivityTransient() {
        #expect(map(NotifyCall(summary: "a", hints: ["transient": .boolean(true)])).isTransient)
        #expect(map(NotifyCall(summary: "a", hints: ["transient": .integer(1)])).isTransient, "some clients send a byte")
        #expect(!map(NotifyCall(summary: "a", hints: ["transient": .boolean(false)])).isTransient)
        #expect(!map(NotifyCall(summary: "a")).isTransient)
        let odd = NotificationMapping.activity(for: NotifyCall(summary: "a", hints: ["transient": .string("yes")]), id: NookActivityID(), key: nil, allowPaths: true)
        #expect(!odd.activity.isTransient && odd.notes.contains { $0.contains("transient") })
    }

    @Test func e2_anEmptySummaryFallsBackToTheAppName() {
        #expect(map(NotifyCall(appName: "Backups", summary: "  ")).title == "Backups")
        #expect(map(NotifyCall(summary: "")).title == "Notification")
    }

    @Test func e2_urgencyIsPriorityAndCriticalIsABlockerThatNeverExpires() {
        #expect(map(NotifyCall(summary: "a", hints: ["urgency": .integer(0)])).priority == .low)
        #expect(map(NotifyCall(summary: "a")).priority == .normal)
        #expect(map(NotifyCall(summary: "a", hints: ["urgency": .integer(1)])).presentation == .timed)
        let critical = map(NotifyCall(summary: "a", hints: ["urgency": .integer(2)], expireTimeout: 5000))
        #expect(critical.priority == .high)
        #expect(critical.presentation == .blocker(timeout: nil))
        #expect(critical.tint == .named(.red))
    }

    @Test func e2_expireTimeoutIsDefaultBlockerOrDwell() {
        let byDefault = map(NotifyCall(summary: "a", expireTimeout: -1))
        #expect(byDefault.presentation == .timed && byDefault.dwell == NookActivity.defaultDwell)
        #expect(map(NotifyCall(summary: "a", expireTimeout: 0)).presentation == .blocker(timeout: nil))
        let timed = map(NotifyCall(summary: "a", expireTimeout: 1500))
        #expect(timed.presentation == .timed && timed.dwell == .milliseconds(1500))
        let result = NotificationMapping.activity(for: NotifyCall(summary: "a", expireTimeout: Int32.max), id: NookActivityID(), key: nil, allowPaths: true)
        #expect(result.activity.dwell == NookActivity.Limits.longestDwell)
        #expect(result.notes.count == 1)
    }

    @Test func e2_valueHintIsProgressClamped() {
        #expect(map(NotifyCall(summary: "a", hints: ["value": .integer(40)])).progress == 0.4)
        #expect(map(NotifyCall(summary: "a", hints: ["value": .integer(250)])).progress == 1)
        #expect(map(NotifyCall(summary: "a", hints: ["value": .integer(-3)])).progress == 0)
        #expect(map(NotifyCall(summary: "a", hints: ["value": .string("x")])).progress == nil)
    }

    @Test func e2_stackTagsAreReadFromEitherHint() {
        #expect(NotifyCall(summary: "a", hints: ["x-dunst-stack-tag": .string("vol")]).stackTag == "vol")
        #expect(NotifyCall(summary: "a", hints: ["x-canonical-private-synchronous": .string("bright")]).stackTag == "bright")
        #expect(NotifyCall(summary: "a", hints: ["x-dunst-stack-tag": .string("")]).stackTag == nil)
    }

    @Test func e2_freedesktopIconNamesMapToOurIcons() {
        #expect(map(NotifyCall(appIcon: "dialog-information", summary: "a")).systemImage == "info.circle")
        #expect(map(NotifyCall(appIcon: "network-wireless", summary: "a")).systemImage == "wifi")
        #expect(map(NotifyCall(appIcon: "battery-low", summary: "a")).systemImage == "battery.25")
        #expect(map(NotifyCall(appIcon: "mail-unread-symbolic", summary: "a")).systemImage == "envelope")
        #expect(map(NotifyCall(appIcon: "dialog-error", summary: "a")).tint == .named(.red))
    }

    @Test func e2_imagePathComesBeforeAppIconAndCategoryIsTheFallback() {
        #expect(map(NotifyCall(appIcon: "dialog-information", summary: "a", hints: ["image-path": .string("battery-low")])).systemImage == "battery.25")
        // An unmapped name goes to nookd, which draws its icon file or this fallback (M3).
        #expect(map(NotifyCall(appIcon: "some-app-we-do-not-know", summary: "a", hints: ["category": .string("email.arrived")])).iconFallback == "envelope")
        #expect(map(NotifyCall(summary: "a", hints: ["category": .string("network.disconnected")])).systemImage == "wifi")
        #expect(map(NotifyCall(appIcon: "unknown", summary: "a")).iconFallback == "bell")
        #expect(map(NotifyCall(summary: "a", hints: ["urgency": .integer(2)])).systemImage == "exclamationmark.triangle")
    }

    /// R3: an icon the sender named and the bridge passed over is noted with what is drawn
    /// instead; a name drawn as asked, or one never read because an earlier one was, is not.
    @Test func e2_r3_anIconPassedOverIsNotedWithWhatIsDrawnInstead() {
        func notes(_ call: NotifyCall, allowPaths: Bool = true) -> [String] {
            NotificationMapping.activity(for: call, id: NookActivityID(), key: nil, allowPaths: allowPaths).notes
        }
        // A name that may be an icon file's goes to nookd with what shows instead: nookd says it (M3).
        func sent(_ call: NotifyCall) -> (String?, String?) {
            let card = NotificationMapping.activity(for: call, id: NookActivityID(), key: nil, allowPaths: true).activity
            return (card.systemImage, card.iconFallback)
        }
        #expect(notes(NotifyCall(appIcon: "heat", summary: "a")).isEmpty && sent(NotifyCall(appIcon: "heat", summary: "a")) == ("heat", "bell"))
        let mail = NotifyCall(appIcon: "heat", summary: "a", hints: ["category": .string("email.arrived")])
        #expect(notes(mail).isEmpty && sent(mail) == ("heat", "envelope"))
        #expect(notes(NotifyCall(appIcon: "/home/me/icon.svg", summary: "a")) == ["app_icon '/home/me/icon.svg' is an image nookd does not read (it draws PNG files); using the bell"])
        #expect(notes(NotifyCall(appIcon: "/home/me/icon.png", summary: "a"), allowPaths: false)
                == ["app_icon '/home/me/icon.png' is an image of another user's, which nookd does not read; using the bell"])
        #expect(notes(NotifyCall(appIcon: "x\ny", summary: "a")) == ["app_icon 'x\\u{a}y' is not an icon name Nook maps; using the bell"])
        #expect(notes(NotifyCall(appIcon: "battery-low", summary: "a")).isEmpty)
        #expect(notes(NotifyCall(appIcon: "heat", summary: "a", hints: ["image-path": .string("battery-low")])).isEmpty)
    }

    @Test func e2_pngPathsPassOnlyForTheBridgesOwnUser() {
        #expect(map(NotifyCall(appIcon: "file:///home/me/icon.png", summary: "a")).systemImage == "/home/me/icon.png")
        #expect(map(NotifyCall(appIcon: "/home/me/icon.png", summary: "a", hints: ["category": .string("im")]), allowPaths: false).systemImage == "message")
        #expect(map(NotifyCall(appIcon: "/home/me/icon.svg", summary: "a")).systemImage == "bell")
    }

    @Test func e2_overlongTextIsCutAndSaysSo() {
        let long = String(repeating: "é", count: 5000)
        let result = NotificationMapping.activity(for: NotifyCall(summary: long, body: long), id: NookActivityID(), key: nil, allowPaths: true)
        #expect(result.activity.title.count == NookActivity.Limits.titleCharacters)
        #expect(result.activity.subtitle?.count == NookActivity.Limits.subtitleCharacters)
        #expect(result.notes.count == 2)
        #expect((try? result.activity.validate()) != nil)
    }

    @Test func e2_everyMappedActivityIsValid() throws {
        for urgency in Int64(-1)...3 {
            for timeout in [Int32.min, -1, 0, 1, 999_999_999] {
                try map(NotifyCall(summary: "\u{0}x", body: "&#1;", hints: ["urgency": .integer(urgency)], expireTimeout: timeout)).validate()
            }
        }
    }

    @Test func e1_stringsFromTheBusAreCutAtACharacterAndInvalidUTF8IsRepaired() {
        let text = Array("aé€".utf8) + [0]   // 1 + 2 + 3 bytes
        text.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                #expect(BusMessage.clampedText(chars.baseAddress!, limit: 2) == ("a", 6))
                #expect(BusMessage.clampedText(chars.baseAddress!, limit: 3) == ("aé", 6))
                #expect(BusMessage.clampedText(chars.baseAddress!, limit: 100) == ("aé€", 6))
            }
        }
        let invalid: [UInt8] = [0x41, 0xFF, 0xC3, 0x28, 0]
        invalid.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                #expect(BusMessage.clampedText(chars.baseAddress!, limit: 100).text == "A\u{FFFD}\u{FFFD}(")
            }
        }
    }
}
