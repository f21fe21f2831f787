import Foundation
import NookHTTP
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// The page (V2) in real browsers: nookd on the mock display and a private socket, nook-http
/// on a loopback port the kernel chose, and headless Chromium driven by Selenium
/// and Firefox ESR driven over WebDriver BiDi (`Browser/page_in_browser.py`, which says what
/// it checks). The screenshots are kept in `$NOOK_TEST_ARTIFACTS/page/`, else
/// `.build/test-artifacts/page/` (`page-chromium.png`, `page-firefox.png`).
@Suite("V2 the page in a browser", .serialized, .ownThreads)
struct PageBrowserTests {
    static let root = BuiltProducts.repository
    static let binaries = BuiltProducts.directory
    static let artifacts = (ProcessInfo.processInfo.environment["NOOK_TEST_ARTIFACTS"] ?? root + "/.build/test-artifacts") + "/page"

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// nookd and nook-http for one test, killed when released.
    final class Servers {
        let directory: String
        let socket: String
        let nookd = Process()
        let http = Process()
        let httpLog: String
        private(set) var url = ""

        /// - Parameter httpConfig: nook-http's config (a token file, …), beside the nookd timeout.
        init(httpConfig: String = "") throws {
            directory = NSTemporaryDirectory() + "nook-page-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            socket = directory + "/nookd.sock"
            httpLog = directory + "/nook-http.log"
            nookd.executableURL = URL(fileURLWithPath: PageBrowserTests.binaries + "/nookd")
            nookd.arguments = ["--socket", socket, "--display", "mock", "--journal", "none", "--log-level", "warning"]
            nookd.standardError = FileHandle.nullDevice
            try nookd.runAlone()
            let deadline = Date().addingTimeInterval(TestBounds.seconds(60))
            while (try? NookClient(path: socket)) == nil {
                guard Date() < deadline, nookd.isRunning else { throw Failure(description: "nookd did not start") }
                usleep(20_000)
            }
            _ = FileManager.default.createFile(atPath: httpLog, contents: nil)
            let output = Pipe.closedOnExec()
            http.executableURL = URL(fileURLWithPath: PageBrowserTests.binaries + "/nook-http")
            // A config file of the test's own: the machine's /etc/nook/http.toml must not count.
            let config = directory + "/nook-http.toml"
            _ = FileManager.default.createFile(atPath: config, contents: Data(HTTPService.withNookdTimeout(httpConfig).utf8))
            http.arguments = ["--socket", socket, "--listen", "127.0.0.1:0", "--config", config, "--log-level", "info"]
            http.standardOutput = output
            http.standardError = FileHandle(forWritingAtPath: httpLog)
            try http.runAlone()
            // Its first line says where it listens.
            let text = output.firstLine()
            guard let address = text.split(separator: "\n").first?.split(separator: " ").last, text.hasPrefix("listening on ") else {
                throw Failure(description: "nook-http did not say where it listens: '\(text)' \(log)")
            }
            url = "http://\(address)"
        }

        var log: String { (try? String(contentsOfFile: httpLog, encoding: .utf8)) ?? "" }

        deinit {
            for process in [http, nookd] where process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitForExit()
            }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// What the tests drive: Debian's chromium and chromium-driver, Firefox ESR, and Selenium
    /// from PyPI (whose websocket-client also speaks WebDriver BiDi to Firefox).
    static func missing(_ paths: [String]) -> [String] {
        var missing = paths.filter { !FileManager.default.isExecutableFile(atPath: $0) }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import selenium, websocket"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        if (try? probe.runAlone()) == nil || !probe.waitForExit(seconds: 60) || probe.terminationStatus != 0 {
            missing.append("python3's selenium")
        }
        return missing
    }

    /// The routes the page calls: it runs once nook-http's table has them (the native API's
    /// and the live view's branches are merged), as it has the page's own.
    static var pageRoutesJoined: Bool {
        let served = Set(HTTPRouteTable.standard().routes.map { "\($0.method) \($0.pattern)" })
        return ["GET /", "GET /page/page.js", "GET /api/v1/screen.png", "GET /api/v1/activities", "POST /api/v1/activities",
                "POST /api/v1/activities/{id}/dismiss", "GET /api/v1/status", "GET /api/v1/history", "POST /api/v1/suspend",
                "POST /api/v1/resume", "PUT /api/v1/quiet"].allSatisfy(served.contains)
    }

    /// Runs the browser script against fresh servers; its transcript says what it checked.
    /// `part`: `apps` runs the apps' checks, with a read and a publish token.
    func runPage(in browser: String, part: String = "all") throws {
        var httpConfig = "", extra: [String] = []
        if part == "apps" {
            let (read, publish) = ("nook_page-read-token", "nook_page-publish-token")
            let tokens = NSTemporaryDirectory() + "nook-page-tokens-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            try "viewer read sha256:\(sha256Hex(read))\npager read,publish sha256:\(sha256Hex(publish))\n".write(toFile: tokens, atomically: true, encoding: .utf8)
            chmod(tokens, 0o600)
            httpConfig = "[http]\ntokens = \"\(tokens)\"\nrate_limit_per_s = 0\n"
            extra = ["--part", "apps", "--read-token", read, "--publish-token", publish]
        }
        let servers = try Servers(httpConfig: httpConfig)
        try FileManager.default.createDirectory(atPath: Self.artifacts, withIntermediateDirectories: true)
        let shot = Self.artifacts + (part == "apps" ? "/page-\(browser)-apps.png" : "/page-\(browser).png")
        try? FileManager.default.removeItem(atPath: shot)
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        script.arguments = ["python3", "-B", Self.root + "/Tests/NookHTTPTests/Browser/page_in_browser.py", "--browser", browser,
                            "--url", servers.url, "--socket", servers.socket, "--artifacts", Self.artifacts] + extra
        let output = Pipe.closedOnExec()
        script.standardOutput = output
        script.standardError = output
        try script.runAlone()
        let transcript = String(decoding: output.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
        script.waitForExit(seconds: TestBounds.seconds(180))
        #expect(script.terminationStatus == 0, "the browser test failed:\n\(transcript)\nnook-http's log:\n\(servers.log)")
        #expect(transcript.contains("page_in_browser: all passed"), "\(transcript)")
        #expect(FileManager.default.fileExists(atPath: shot), "no screenshot at \(shot)")
    }

    @Test(.enabled(if: pageRoutesJoined, "nook-http's table lacks the API or live view routes the page calls"),
          .enabled(if: missing(["/usr/bin/chromium", "/usr/bin/chromedriver"]).isEmpty,
                   "needs Debian's chromium and chromium-driver and PyPI's selenium: run Hardware/dev/install-deps"))
    func v2_inChromiumTheGlassIsLiveEveryButtonActsByKeyboardAndHistorySearchFilters() throws {
        try runPage(in: "chromium")
    }

    /// A5 on the page: the apps listed with their text, stale marked, the one on the glass
    /// followed as the rotation turns (by itself and by the buttons) and as apps come and go;
    /// Previous and Next refused to a read token and acting for a publish one.
    @Test(.enabled(if: pageRoutesJoined, "nook-http's table lacks the API or live view routes the page calls"),
          .enabled(if: missing(["/usr/bin/chromium", "/usr/bin/chromedriver"]).isEmpty,
                   "needs Debian's chromium and chromium-driver and PyPI's selenium: run Hardware/dev/install-deps"))
    func v2_a5_inChromiumTheAppsAreListedLiveAndPreviousAndNextTurnTheRotationForAPublishToken() throws {
        try runPage(in: "chromium", part: "apps")
    }

    @Test(.enabled(if: pageRoutesJoined, "nook-http's table lacks the API or live view routes the page calls"),
          .enabled(if: missing(["/usr/bin/firefox-esr"]).isEmpty, "needs Debian's firefox-esr and PyPI's selenium: run Hardware/dev/install-deps"))
    func v2_inFirefoxESRTheGlassIsLiveEveryButtonActsByKeyboardAndHistorySearchFilters() throws {
        try runPage(in: "firefox")
    }
}
