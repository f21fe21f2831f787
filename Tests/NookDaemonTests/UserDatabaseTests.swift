import Foundation
import NookActivities
import NookConfig
@testable import NookDaemon
import NookSystem
import NookTestTraits
import Testing

/// C4 and U3 ask the user database who a peer is on the connections' threads, several at once.
// Eight threads of its own, not `concurrentPerform`: that runs its lanes on the dispatch
// workers Swift Testing's tasks run on, and 160,000 look-ups held them from every other test.
@Suite("C4 U3 the user database from many threads", .ownThreads)
struct UserDatabaseTests {
    @Test func u3_eachLookUpOfAUserNameGetsThatUsersNameWhileOthersRunAtOnce() {
        let uids: [UInt32] = [0, 1, 2, 65534]
        let names = uids.map { userName(of: $0) }
        #expect(names.allSatisfy { $0 != nil }, "\(names)")
        let wrong = Locked<[String]>([])
        let finished = DispatchSemaphore(value: 0)
        for lane in 0..<8 {
            Thread {
                for round in 0..<20_000 {
                    let index = (lane + round) % uids.count
                    let name = userName(of: uids[index])
                    if name != names[index] { wrong.withLock { $0.append("uid \(uids[index]): \(name ?? "nil")") } }
                }
                finished.signal()
            }.start()
        }
        for _ in 0..<8 { finished.wait() }
        let found = wrong.withLock { $0 }
        #expect(found.count == 0, "the first wrong names: \(found.prefix(5))")
    }
}
