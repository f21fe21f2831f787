import NookProtocol
import Testing

/// How the bridges (nook-notify, nook-mqtt) space their attempts to reach nookd or a broker.
@Suite struct ReconnectBackoffTests {
    @Test func e1_e4_attemptsDoubleFromAQuarterSecondUpToTheLimitAndStartOverAfterASuccess() {
        var backoff = ReconnectBackoff()
        #expect((0..<8).map { _ in backoff.next() } == [0.25, 0.5, 1, 2, 4, 8, 10, 10])
        backoff.reset()
        #expect(backoff.next() == 0.25)
        var notify = ReconnectBackoff(limit: 1)
        #expect((0..<4).map { _ in notify.next() } == [0.25, 0.5, 1, 1])
    }
}
