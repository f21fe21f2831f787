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

    /// Every target is fuzzed by the scripts: in Hardware/dev/fuzz's `all`, in one of
    /// Hardware/dev/test's two lanes, and with a dictionary; a new target cannot be left out.
    @Test func c3_n1_everyTargetIsFuzzedByTheScripts() throws {
        let repository = String(Self.root.dropLast("/Tests/Fuzz/".count))
        let fuzz = try String(contentsOfFile: repository + "/Hardware/dev/fuzz", encoding: .utf8)
        let test = try String(contentsOfFile: repository + "/Hardware/dev/test", encoding: .utf8)
        let all = try #require(fuzz.split(separator: "\n").first { $0.contains("[ \"$targets\" = all ] && targets=") })
        let lanes = test.split(separator: "\n").filter { $0.contains("Hardware/dev/fuzz \"") }
        #expect(lanes.count == 2)
        func names(_ line: Substring) -> Set<String> {
            guard let quoted = line.split(separator: "\"").dropFirst().first(where: { !$0.contains("$") && !$0.contains("=") }) else { return [] }
            return Set(quoted.split(separator: " ").map(String.init))
        }
        let everyTarget = Set(FuzzTarget.allCases.map(\.rawValue))
        #expect(names(all) == everyTarget)
        #expect(lanes.map(names).reduce(Set<String>()) { $0.union($1) } == everyTarget)
        for target in everyTarget {
            #expect(FileManager.default.fileExists(atPath: Self.root + target + ".dict"), "\(target) has no dictionary")
        }
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
