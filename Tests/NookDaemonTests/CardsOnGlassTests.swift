import NookActivities
import NookTestSupport
@testable import NookDaemon
import Testing

/// Q16: memory stays bounded under any load. nookd's card-leaving handler, kept in a lock, grew
/// two thunks each time it was read (`KeptClosure` says why): 65 bytes a card that stayed, and a
/// call 48,176 frames deep after 52,000 cards.
@Suite("Q16 the handler told of each card leaving the glass stays as it was kept")
struct CardsOnGlassTests {
    @Test func q16_theLeavingHandlerIsCalledAsDeepAfterThousandsOfCardsAsAfterTheFirst() {
        let glass = CardsOnGlass()
        let depths = Locked<[UInt]>([])
        glass.whenACardLeaves { _ in
            let depth = stackAddressHere()
            depths.withLock { $0.append(depth) }
        }
        for index in 0..<3_000 {
            let card = NookActivity(title: "Card \(index)")
            glass.observe([NookActivityEvent(activity: card, kind: .animateIn, at: .origin, module: "main")], queue: 0)
            glass.observe([NookActivityEvent(activity: card, kind: .hidden(.completed), at: .origin, module: "main")], queue: 0)
        }
        let seen = depths.withLock { $0 }
        #expect(seen.count == 3_000)
        #expect(seen.first == seen.last, "where the call's stack was at the first card and the last: \(seen.first ?? 0), \(seen.last ?? 0)")
    }
}
