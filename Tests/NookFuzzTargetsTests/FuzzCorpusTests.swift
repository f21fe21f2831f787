import Foundation
import NookFuzzTargets
import Testing

/// Replays every committed fuzz input, seeds and crash regressions alike (C3, N1): a
/// decoder or validator that crashes, or breaks a property the target checks, fails here.
@Suite("C3 N1 the fuzz corpora replay cleanly")
struct FuzzCorpusTests {
    static let root: String = {
        let file = #filePath
        return String(file[..<file.range(of: "/Tests/")!.lowerBound]) + "/Tests/Fuzz/"
    }()

    static func inputs(_ target: FuzzTarget) -> [String] {
        let directory = root + target.rawValue
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted().map { directory + "/" + $0 }
    }

    @Test(arguments: FuzzTarget.allCases)
    func c3_n1_everyCommittedInputRunsWithoutACrash(target: FuzzTarget) throws {
        let files = Self.inputs(target)
        #expect(files.count >= 6, "the \(target) corpus is missing")
        for file in files {
            target.run(Array(try Data(contentsOf: URL(fileURLWithPath: file))))
        }
    }
}
