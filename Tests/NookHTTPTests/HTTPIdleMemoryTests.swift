import Foundation
import NookSystem
import NookTestSupport
import Testing

/// nook-http gives the pages a burst of requests faulted in back to the page cache a second after
/// the burst (`IdleTrim`, as nook-mqtt and nook-notify): a board's web bridge that served a
/// Home Assistant burst does not keep its code resident for the rest of the day.
@Suite("N3 idle memory: nook-http")
struct HTTPIdleMemoryTests {
    /// The file-backed resident memory of `pid` (its code and read-only data), in KiB.
    func residentFileKiB(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssFile:") }) else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }

    @Test func n3_nookHTTPGivesBackTheCodeABurstFaultedInOnceTheBurstIsOver() throws {
        let service = try HTTPService()
        let pid = service.server.processIdentifier
        // A burst over several routes: the publish path, the page, the API's listing. Requests
        // are handled only after start-up's own drop, so what is resident after them is theirs.
        var arguments: [String] = []
        for index in 0..<10 {
            arguments += ["-X", "POST", "-d", "Backup \(index) complete", service.url + "/backups", "--next"]
            arguments += [service.url + "/", "--next", service.url + "/api/v1/activities", "--next"]
        }
        let result = try curl(arguments + [service.url + "/healthz"])
        #expect(result.status == 0, "\(result.error)")
        let busy = try #require(residentFileKiB(pid))
        // What the test observes is the fall; the bound only ends a test whose pages never go.
        // Without the trim the code stays resident: the level holds at `busy`. On a loaded machine
        // a second's wait for nookd within the burst is a quiet second: a trim then, and the next
        // one a minute later (`IdleTrim.minimumInterval`), which the bound leaves room for.
        let deadline = Date().addingTimeInterval(IdleTrim.minimumInterval + TestBounds.seconds(30))
        var now = busy
        while Date() < deadline, now * 10 > busy * 6 {
            usleep(100_000)
            now = residentFileKiB(pid) ?? now
        }
        #expect(now * 10 <= busy * 6, "file-backed resident memory \(busy) KiB after the burst, still \(now) KiB: \(service.logText)")
    }
}
