@testable import NookActivities
import Synchronization
import NookTestTraits
import Testing

/// Fresh ids drawn from a pool of random words (one kernel call per 256 ids in nookd),
/// and the hash sets and dictionaries of ids use.
@Suite("Q1 activity ids: their randomness and their hash")
struct ActivityIDRandomnessTests {
    /// A fill that writes 1, 2, 3… and counts its calls: what the pool hands out is visible.
    final class CountingFill: Sendable {
        let calls = Atomic<Int>(0)
        let nextWord = Atomic<UInt64>(1)
        func fill(_ buffer: UnsafeMutableRawBufferPointer) {
            calls.add(1, ordering: .relaxed)
            for offset in stride(from: 0, to: buffer.count, by: 8) {
                buffer.storeBytes(of: nextWord.add(1, ordering: .relaxed).oldValue, toByteOffset: offset, as: UInt64.self)
            }
        }
    }

    @Test func q1_aPoolHandsOutEachWordOnceInOrderAndRefillsOnlyWhenSpent() {
        let source = CountingFill()
        var pool = RandomWordPool(capacity: 512) { source.fill($0) }
        #expect(source.calls.load(ordering: .relaxed) == 0, "nothing is fetched before the first word is asked for")
        let words = (0..<1025).map { _ in pool.next() }
        #expect(words == Array(1...1025), "each word once, in the order fetched")
        #expect(source.calls.load(ordering: .relaxed) == 3, "512 words a call: 1,025 words take three")
    }

    @Test func q1_idsFromAPoolAreVersion4AndTwoWordsEach() {
        let source = CountingFill()
        var pool = RandomWordPool(capacity: 512) { source.fill($0) }
        let ids = (0..<256).map { _ in NookActivityID(using: &pool) }
        #expect(source.calls.load(ordering: .relaxed) == 1, "256 ids from one fill of 4 KiB")
        #expect(Set(ids).count == 256)
        for id in ids {
            let text = Array(id.description)
            #expect(text[14] == "4" && "89ab".contains(text[19]), "\(id)")
        }
        _ = NookActivityID(using: &pool)
        #expect(source.calls.load(ordering: .relaxed) == 2)
    }

    @Test func q1_freshIdsDrawnFromAnInstalledPoolStayDistinctWhileItIsInstalledAgain() async {
        // A bulk source as nookd's, random, that counts its calls. Other tests draw ids from the
        // same process-wide pool meanwhile: they only add calls and use up words.
        let calls = Atomic<Int>(0)
        let fill: RandomWordPool.Fill = { buffer in
            calls.add(1, ordering: .relaxed)
            var system = SystemRandomNumberGenerator()
            for offset in stride(from: 0, to: buffer.count, by: 8) { buffer.storeBytes(of: system.next(), toByteOffset: offset, as: UInt64.self) }
        }
        IDRandomness.install(fill: fill)
        // The rest of the process draws from the system again: as a client does, with no lock.
        defer { IDRandomness.uninstall() }
        let ids = await withTaskGroup(of: [NookActivityID].self) { group in
            for _ in 0..<4 { group.addTask { (0..<2_000).map { _ in NookActivityID() } } }
            group.addTask {
                for _ in 0..<10 { IDRandomness.install(fill: fill) }
                return []
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(ids.count == 8_000 && Set(ids).count == 8_000, "no id twice, however the installs fell")
        #expect(Set(ids.map { Array($0.description)[14] }) == ["4"])
        // 8,000 ids are 16,000 words: at least 31 fills of 512 once the last install is done.
        #expect(calls.load(ordering: .relaxed) >= 16, "the ids came from the installed fill")
    }

    @Test func q1_theHashOfAnIdIsKeyedByTheTablesSeedAndSpreadsNeighbouringIds() {
        let id = NookActivityID(high: 0x0123_4567_89ab_4cde, low: 0x8f01_2345_6789_abcd)
        let same = NookActivityID(id.description)!
        #expect(id._rawHashValue(seed: 42) == same._rawHashValue(seed: 42), "equal ids hash alike")
        #expect(id._rawHashValue(seed: 42) != id._rawHashValue(seed: 43), "the seed is in the hash")
        // Ids a client could count through (1, 2, 3… in either word) land in every bucket of a
        // table of 256 about evenly, under every secret tried (each process draws its own):
        // none gets twice its share.
        var keys = SystemRandomNumberGenerator()
        // 6 of the 48 under qemu-user, where 2.5 million hashes took over a minute.
        for _ in 0..<(QEMUUser.running ? 6 : 48) {
            let secret = (keys.next() as UInt64, keys.next() as UInt64)
            let table = keys.next() as UInt64
            for countsLow in [true, false] {
                var buckets = [Int](repeating: 0, count: 256)
                for number in UInt64(0)..<25_600 {
                    let (high, low) = countsLow ? (UInt64(0x4000), 0x8000_0000_0000_0000 | number) : (0x4000 | number << 16, UInt64(0x8000_0000_0000_0000))
                    buckets[NookActivityID.hash(high: high, low: low, secret: secret, table: table) & 255] += 1
                }
                #expect(buckets.max()! <= 200 && buckets.min()! >= 40, "secret \(secret): \(buckets.min()!)…\(buckets.max()!)")
            }
        }
        // Sets and dictionaries use it: 10,000 ids in and out.
        var set = Set((0..<10_000).map { NookActivityID(high: 0x4000 | UInt64($0) << 16, low: 0x8000_0000_0000_0000) })
        #expect(set.count == 10_000)
        set.remove(NookActivityID(high: 0x4000 | 5 << 16, low: 0x8000_0000_0000_0000))
        #expect(set.count == 9_999 && !set.contains(NookActivityID(high: 0x4000 | 5 << 16, low: 0x8000_0000_0000_0000)))
    }
}
