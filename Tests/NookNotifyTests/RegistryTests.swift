import NookActivities
import NookNotify
import NookProtocol
import Testing

/// SPEC E1 ids, replaces_id and stack tags, E3 close reasons, U3 ownership.
@Suite("E1 E3 notification registry")
struct RegistryTests {
    /// Plans and commits one notification, returning its id and activity.
    @discardableResult
    func add(_ registry: inout NotificationRegistry, _ call: NotifyCall, uid: UInt32 = 1000, sender: String = ":1.5") -> (UInt32, NookActivityID) {
        let placement = registry.plan(call, uid: uid)
        let activity = NookActivityID()
        registry.commit(placement, activity: activity, uid: uid, sender: sender, hasDefaultAction: call.hasDefaultAction,
                        isResident: call.isResident)
        return (placement.id, activity)
    }

    @Test func e3_anInvokedDefaultActionNamesTheNotificationAndDismissesItUnlessResident() {
        var registry = NotificationRegistry()
        let (_, plain) = add(&registry, NotifyCall(summary: "a"))
        let (openID, open) = add(&registry, NotifyCall(summary: "b", actions: ["default", "Open"]))
        let (keptID, kept) = add(&registry, NotifyCall(summary: "c", actions: ["default", "Open"], hints: ["resident": .boolean(true)]))
        let (_, other) = add(&registry, NotifyCall(summary: "d", actions: ["reply", "Reply"]))
        let (none, noDefault, unknown) = (registry.invoked(plain), registry.invoked(other), registry.invoked(NookActivityID()))
        #expect(none == nil && noDefault == nil && unknown == nil, "no default action: nothing to invoke")
        let first = registry.invoked(open)
        #expect(first?.id == openID && first?.dismiss == open)
        let resident = registry.invoked(kept)
        #expect(resident?.id == keptID && resident?.dismiss == nil, "resident: it stays")
        #expect(NotifyCall(summary: "e", hints: ["resident": .integer(1)]).isResident)
        // notify-send calls CloseNotification right after ActionInvoked: it is already closing,
        // and closes as dismissed by the user (reason 2), not as closed by the call.
        #expect(registry.requestClose(openID, uid: 1000) == .alreadyClosing)
        #expect(registry.requestClose(openID, uid: 1001) == .forbidden(owner: 1000))
        let again = registry.invoked(open)
        #expect(again == nil, "invoked again while it closes: one ActionInvoked, one dismiss")
        #expect(registry.ended(open, .hidden(.completed))! == (openID, .dismissed))
        // A resident one closed by its client afterwards is closed by the call.
        #expect(registry.requestClose(keptID, uid: 1000) == .cancel(kept))
        let afterClose = registry.invoked(kept)
        #expect(afterClose == nil, "closed by its client: its action is no longer invoked")
        #expect(registry.ended(kept, .hidden(.cancelled))! == (keptID, .closedByCall))
    }

    @Test func e1_idsStartAtOneAndNeverAreZeroOrALiveOne() {
        var registry = NotificationRegistry(lastID: UInt32.max - 1)
        let (first, _) = add(&registry, NotifyCall(summary: "a"))
        let (second, _) = add(&registry, NotifyCall(summary: "b"))
        let (third, _) = add(&registry, NotifyCall(summary: "c"))
        #expect([first, second, third] == [UInt32.max, 1, 2])
        var fresh = NotificationRegistry()
        #expect(add(&fresh, NotifyCall(summary: "a")).0 == 1)
    }

    @Test func e2_replacesIDKeepsTheIdAndNamesTheActivityToTakeOff() {
        var registry = NotificationRegistry()
        let (id, first) = add(&registry, NotifyCall(summary: "Copying 10%"))
        let placement = registry.plan(NotifyCall(replacesID: id, summary: "Copying 50%"), uid: 1000)
        #expect(placement.id == id)
        #expect(placement.replacing == first)
        #expect(placement.coalescingKey == "notify:\(id)")
        let second = NookActivityID()
        registry.commit(placement, activity: second, uid: 1000, sender: ":1.9", hasDefaultAction: false)
        // The replaced activity's end is not the notification's end.
        #expect(registry.ended(first, .rejected("coalesced")) == nil)
        #expect(registry.ended(second, .hidden(.completed))! == (id, .expired))
        #expect(registry.count == 0)
    }

    @Test func e2_anUnknownReplacesIDIsANewNotification() {
        let registry = NotificationRegistry()
        let placement = registry.plan(NotifyCall(replacesID: 77, summary: "a"), uid: 1000)
        #expect(placement.id == 1 && placement.replacing == nil && placement.note != nil)
    }

    @Test func e2_aNotificationAlreadyClosingIsNotReplacedButFollowedByANewOne() {
        var registry = NotificationRegistry()
        let tagged = NotifyCall(appName: "volume", summary: "Volume 40%", hints: ["x-dunst-stack-tag": .string("vol")])
        let (id, activity) = add(&registry, tagged)
        #expect(registry.requestClose(id, uid: 1000) == .cancel(activity))
        var replacement = tagged
        replacement.replacesID = id
        let placement = registry.plan(replacement, uid: 1000)
        #expect(placement.id != id && placement.replacing == nil, "its card is on its way out")
        let next = NookActivityID()
        registry.commit(placement, activity: next, uid: 1000, sender: ":1.5", hasDefaultAction: false)
        // The closed one still closes, and its end leaves the new one with the tag.
        #expect(registry.ended(activity, .hidden(.cancelled))! == (id, .closedByCall))
        #expect(registry.plan(tagged, uid: 1000).replacing == next)
    }

    @Test func u3_anotherUserCannotReplaceOrCloseANotification() {
        var registry = NotificationRegistry()
        let (id, activity) = add(&registry, NotifyCall(summary: "mine"), uid: 1000)
        let placement = registry.plan(NotifyCall(replacesID: id, summary: "theirs"), uid: 1001)
        #expect(placement.id != id && placement.replacing == nil)
        #expect(registry.requestClose(id, uid: 1001) == .forbidden(owner: 1000))
        #expect(registry.requestClose(id, uid: 0) == .cancel(activity))
        #expect(registry.requestClose(999, uid: 1000) == .unknown)
    }

    @Test func e2_aStackTagReplacesTheLiveNotificationWithTheSameTagAndApp() {
        var registry = NotificationRegistry()
        let tagged = NotifyCall(appName: "volume", summary: "Volume 40%", hints: ["x-dunst-stack-tag": .string("vol")])
        let (id, first) = add(&registry, tagged)
        let placement = registry.plan(tagged, uid: 1000)
        #expect(placement.id == id && placement.replacing == first)
        // Another app, or another user, with the same tag is its own notification.
        var otherApp = tagged
        otherApp.appName = "player"
        #expect(registry.plan(otherApp, uid: 1000).replacing == nil)
        #expect(registry.plan(tagged, uid: 1001).replacing == nil)
    }

    @Test func e3_closeReasons() {
        #expect(NotificationRegistry.reason(.hidden(.completed)) == .expired)
        #expect(NotificationRegistry.reason(.hidden(.timedOut)) == .expired)
        #expect(NotificationRegistry.reason(.rejected("expired")) == .expired)
        #expect(NotificationRegistry.reason(.hidden(.dismissed)) == .dismissed)
        #expect(NotificationRegistry.reason(.rejected("dismissed")) == .dismissed)
        #expect(NotificationRegistry.reason(.hidden(.cancelled)) == .other)
        #expect(NotificationRegistry.reason(.rejected("queueFull")) == .other)
        var registry = NotificationRegistry()
        let (id, activity) = add(&registry, NotifyCall(summary: "a"))
        #expect(registry.requestClose(id, uid: 1000) == .cancel(activity))
        #expect(registry.ended(activity, .hidden(.cancelled))! == (id, .closedByCall))
        #expect(registry.ended(activity, .hidden(.cancelled)) == nil)
    }

    @Test func e1_liveCountsPerSender() {
        var registry = NotificationRegistry()
        add(&registry, NotifyCall(summary: "a"), sender: ":1.1")
        add(&registry, NotifyCall(summary: "b"), sender: ":1.1")
        add(&registry, NotifyCall(summary: "c"), sender: ":1.2")
        #expect(registry.liveCount(sender: ":1.1") == 2)
        #expect(registry.liveCount(sender: ":1.3") == 0)
    }
}

@Suite("E1 flood limits")
struct SenderLimitsTests {
    @Test func e1_aFloodFromOneSenderIsRefusedAfterItsBurstAndOthersStillPass() {
        var limits = SenderLimits(burst: 10, perSecond: 5, liveLimit: 1000)
        let admitted = (0..<100).filter { _ in limits.admit(":1.7", now: 100, live: 0) == nil }.count
        #expect(admitted == 10)
        #expect(limits.admit(":1.8", now: 100, live: 0) == nil)
        // Tokens come back with time: one second later, five more.
        let later = (0..<100).filter { _ in limits.admit(":1.7", now: 101, live: 0) == nil }.count
        #expect(later == 5)
    }

    @Test func e1_aSenderWithTooManyLiveNotificationsIsRefused() {
        var limits = SenderLimits(burst: 100, perSecond: 100, liveLimit: 3)
        #expect(limits.admit(":1.7", now: 0, live: 2) == nil)
        #expect(limits.admit(":1.7", now: 0, live: 3)?.contains("at most 3") == true)
    }

    @Test func e1_manyShortLivedSendersAreForgotten() {
        var limits = SenderLimits(burst: 2, perSecond: 1, liveLimit: 10)
        for sender in 0..<10_000 { _ = limits.admit(":1.\(sender)", now: Double(sender), live: 0) }
        #expect(limits.trackedSenders <= 257)
    }
}
