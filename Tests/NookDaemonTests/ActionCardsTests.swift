import NookActivities
@testable import NookDaemon
import Testing

/// E3: what the open input's thread reads at a press, kept from the queues' events.
@Suite("E3 the open input knows whether a card with an action is on the glass")
struct ActionCardsTests {
    func event(_ activity: NookActivity, _ kind: NookActivityEvent.Kind) -> NookActivityEvent {
        NookActivityEvent(activity: activity, kind: kind, at: .origin, module: "main")
    }

    @Test func e3_aCardWithAnActionCountsFromItsSlideInToItsEnd() {
        let cards = ActionCards()
        var mail = NookActivity(title: "Mail")
        mail.hasAction = true
        let plain = NookActivity(title: "Plain")
        cards.observe([event(mail, .enqueued)])
        #expect(!cards.anyOnGlass, "pending is not on the glass")
        cards.observe([event(mail, .animateIn), event(mail, .presented)])
        #expect(cards.anyOnGlass)
        cards.observe([event(mail, .hidden(.dismissed))])
        #expect(!cards.anyOnGlass)
        cards.observe([event(plain, .animateIn)])
        #expect(!cards.anyOnGlass, "a card without an action: the press opens the nook as before")
        cards.observe([event(mail, .animateIn), event(mail, .requeued)])
        #expect(!cards.anyOnGlass, "put back in the queue: off the glass")
    }

    @Test func e3_u1_anUpdateGivesOrTakesTheActionOfTheCardOnTheGlassOnly() {
        let cards = ActionCards()
        var card = NookActivity(title: "Card")
        cards.observe([event(card, .animateIn)])
        var withAction = card
        withAction.hasAction = true
        cards.observe([event(withAction, .updated(previous: card))])
        #expect(cards.anyOnGlass)
        cards.observe([event(card, .updated(previous: withAction))])
        #expect(!cards.anyOnGlass)
        card.id = NookActivityID()
        var pending = card
        pending.hasAction = true
        cards.observe([event(pending, .updated(previous: card))])
        #expect(!cards.anyOnGlass, "an update of a pending card does not put it on the glass")
    }
}
