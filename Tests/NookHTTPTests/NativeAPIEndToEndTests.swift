import Foundation
import NookHTTP
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// H1 through the built nook-http and a real nookd: schemathesis holds the server to the
/// OpenAPI file, curl runs docs/http-api.md's examples, and the route table and the file agree.
@Suite("H1 the native API served by nook-http", .serialized, .ownThreads)
struct NativeAPIEndToEndTests {
    /// The operations nook-http serves today, as schemathesis selects them.
    static let servedPaths = "^/(api/v1/(activities|status|history|suspend|resume|quiet|display|apps|rotation)|healthz)"

    @Test func h1_schemathesisFindsNoServerErrorAndEveryAnswerMatchesTheOpenAPIFile() throws {
        let service = try HTTPService()
        let work = service.directory + "/schemathesis"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        // Every operation, with inputs generated from the file (valid and not), in every phase
        // (the file's examples, its boundaries, random inputs, and chains of calls that follow
        // the ids one answer gives to the next). Small enough to take seconds; each run draws
        // new inputs, and a failure prints the seed and a curl line that repeats it.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["schemathesis", "run", Built.root + "/docs/nook-http.openapi.json", "--url", service.url,
                             "--include-path-regex", Self.servedPaths,
                             "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,"
                                 + "response_headers_conformance,negative_data_rejection",
                             "--max-examples", "20", "--workers", "1", "--no-color",
                             // Its own bound is 10 s a request: the sanitizer pass's machine answered
                             // four of them later than that, which is load, not what this test judges.
                             "--request-timeout", String(TestBounds.seconds(30))]
        process.currentDirectoryURL = URL(fileURLWithPath: work)
        let output = Pipe.closedOnExec()
        process.standardOutput = output
        process.standardError = output
        try process.runAlone()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        _ = process.waitForExit()
        // The failures first: CI shows a failing test's first lines, and the run's header is long.
        let failures = text.range(of: "FAILURES").map { String(text[$0.lowerBound...]) } ?? text
        #expect(process.terminationStatus == 0, "schemathesis found failures:\n\(failures)\nthe whole run:\n\(text)\nnook-http's log:\n\(service.logText.suffix(4000))")
        // It ran every served operation, not none.
        #expect(text.contains("Tested: 22") || text.contains("22 selected"), "\(text)")
        #expect(service.server.isRunning, "nook-http is still running")
        #expect(service.nookd.isRunning, "nookd is still running")
    }

    @Test func h1_theDocumentsCurlExamplesRunAsWrittenAndAnswerAsDocumented() throws {
        let service = try HTTPService()
        // Held back, the examples' cards keep their order and fields however long a loaded
        // machine takes between them: on the glass, the first (5 s) could end before the
        // listing that shows it.
        let suspended = try runProgram("/usr/bin/curl", ["-sS", "-X", "POST", service.url + "/api/v1/suspend"])
        #expect(suspended.status == 0 && suspended.output.contains("modules"), "\(suspended)")
        let examples = try HTTPAPIDocExample.all()
        #expect(examples.count >= 10, "docs/http-api.md's examples")
        for example in examples {
            let (status, output) = try example.run(at: "127.0.0.1:\(service.port)")
            #expect(status == 0, "\(example.command): \(output)")
            let actual = (try? JSONValue.parse(Array(output.utf8))) ?? .string(output)
            let problems = HTTPAPIDocExample.differences(documented: example.answer, actual: actual, command: example.command)
            #expect(problems.isEmpty, "\(example.command)\n\(output)\n\(problems.joined(separator: "\n"))")
        }
    }

    @Test func h1_createOverHTTPIsAnsweredWithLocationAndTheTokensNameIsTheSenderWithinItsScopes() throws {
        let tokens = NSTemporaryDirectory() + "nook-http-api-tokens-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let (grafana, viewer, owner) = ("nook_grafana-token", "nook_viewer-token", "nook_owner-token")
        try """
        grafana publish sha256:\(sha256Hex(grafana))
        viewer read sha256:\(sha256Hex(viewer))
        owner admin sha256:\(sha256Hex(owner))

        """.write(toFile: tokens, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: tokens) }
        chmod(tokens, 0o600)
        let service = try HTTPService(config: "[http]\ntokens = \"\(tokens)\"\nrate_limit_per_s = 0\n")
        func curl(_ token: String, _ arguments: [String]) throws -> String {
            try runProgram("/usr/bin/curl", ["-sS", "-i", "-H", "Authorization: Bearer \(token)"] + arguments).output
        }
        let created = try curl(grafana, ["-X", "POST", service.url + "/api/v1/activities", "-H", "Content-Type: application/json",
                                         "-d", #"{"title":"Over HTTP","dwell":3600}"#])
        #expect(created.hasPrefix("HTTP/1.1 201"), "\(created)")
        let location = created.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location:") }
        let path = try #require(location.map { String($0.dropFirst("location:".count)).trimmingCharacters(in: .whitespaces) })
        let shown = try runProgram("/usr/bin/curl", ["-sS", "-u", ":" + viewer, service.url + path])
        #expect((try? JSONValue.parse(Array(shown.output.utf8)))?["activity"]?["title"]?.text == "Over HTTP", "\(shown.output)")

        // Scopes: read cannot publish, publish cannot suspend, admin can.
        #expect(try curl(viewer, ["-X", "POST", service.url + "/api/v1/activities", "-d", #"{"title":"x"}"#]).hasPrefix("HTTP/1.1 403"))
        #expect(try curl(grafana, ["-X", "POST", service.url + "/api/v1/suspend"]).hasPrefix("HTTP/1.1 403"))
        #expect(try curl(owner, ["-X", "POST", service.url + "/api/v1/suspend"]).hasPrefix("HTTP/1.1 200"))
        #expect(try curl(owner, ["-X", "POST", service.url + "/api/v1/resume"]).hasPrefix("HTTP/1.1 200"))

        // The token's name is the card's sender (U3), as the history records it.
        #expect(try curl(grafana, ["-X", "DELETE", service.url + path]).hasPrefix("HTTP/1.1 200"))
        var entry: JSONValue?
        let deadline = Date().addingTimeInterval(TestBounds.seconds(30))
        while entry == nil, Date() < deadline {
            let history = try runProgram("/usr/bin/curl", ["-sS", "-u", ":" + viewer, service.url + "/api/v1/history?q=over"])
            entry = (try? JSONValue.parse(Array(history.output.utf8)))?["entries"]?.items.first
            if entry == nil { usleep(20_000) }
        }
        #expect(entry?["sender"]?["name"]?.text == "grafana", "\(String(describing: entry))")

        // Wrong method on a native path: 405 naming the methods it takes.
        let wrong = try curl(owner, ["-X", "PUT", service.url + "/api/v1/activities"])
        #expect(wrong.hasPrefix("HTTP/1.1 405") && wrong.contains("DELETE") && wrong.contains("POST"), "\(wrong)")
    }
}

/// The route table nook-http serves and docs/nook-http.openapi.json: the same operations, each
/// with its scope.
@Suite struct OpenAPIRouteTableTests {
    @Test func h1_everyRouteInTheTableIsInTheOpenAPIFileAndViceVersa() throws {
        let document = try OpenAPIDocumentTests.document()
        let documented = OpenAPIDocumentTests.operations(document)
        let routes = HTTPRouteTable.standard().routes
        for route in routes {
            let found = documented.first { $0.method == route.method && $0.path == route.pattern }
            #expect(found != nil, "\(route.method) \(route.pattern) is served but not in the OpenAPI file")
            if let found, let scope = found.operation["x-nook-scope"]?.text {
                #expect(scope == route.scope.rawValue, "\(route.method) \(route.pattern): the file says scope \(scope), the route \(route.scope.rawValue)")
            }
        }
        for (method, path, _) in documented {
            let name = "\(method) \(path)"
            let served = routes.contains { $0.method == method && $0.pattern == path }
            #expect(served, "\(name) is in the OpenAPI file but nook-http does not serve it")
        }
    }
}
