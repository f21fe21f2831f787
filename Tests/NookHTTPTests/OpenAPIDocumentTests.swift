import Foundation
import NookActivities
import NookHTTP
import NookProtocol
import Testing

/// docs/nook-http.openapi.json against the routes nook-http serves: each route is documented
/// with its method and scope, and each documented operation is served.
@Suite struct OpenAPIDocumentTests {
    static func document() throws -> JSONValue {
        try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: Built.root + "/docs/nook-http.openapi.json"))))
    }

    /// `(METHOD, path)` of every operation the file documents.
    static func operations(_ document: JSONValue) -> [(method: String, path: String, operation: JSONValue)] {
        guard case .object(let paths)? = document["paths"] else { return [] }
        return paths.flatMap { path, item -> [(String, String, JSONValue)] in
            guard case .object(let methods) = item else { return [] }
            return methods.filter { ["get", "put", "post", "delete", "patch", "head", "options"].contains($0.0) }.map { ($0.0.uppercased(), path, $0.1) }
        }
    }

    @Test func h1_everyNativeRouteIsDocumentedWithItsScopeAndEveryNativeOperationIsServed() throws {
        let document = try Self.document()
        #expect(document["openapi"]?.text?.hasPrefix("3.") == true)
        let documented = Self.operations(document)
        let routes = NativeAPIRoutes.routes()
        for route in routes {
            let found = documented.first { $0.method == route.method && $0.path == route.pattern }
            #expect(found != nil, "\(route.method) \(route.pattern) is not in the OpenAPI file")
            #expect(found?.operation["x-nook-scope"]?.text == route.scope.rawValue, "\(route.method) \(route.pattern)'s scope")
            // Every answer it can give is documented, errors included.
            let statuses = found?.operation["responses"].map { response -> [String] in
                guard case .object(let members) = response else { return [] }
                return members.map(\.0)
            } ?? []
            for status in ["400", "401", "403", "503"] { #expect(statuses.contains(status), "\(route.method) \(route.pattern) documents \(status)") }
        }
        let nativeTags: Set<String> = ["activities", "history", "board", "apps"]
        for (method, path, operation) in documented where operation["tags"]?.items.contains(where: { nativeTags.contains($0.text ?? "") }) == true {
            #expect(routes.contains { $0.method == method && $0.pattern == path }, "\(method) \(path) is documented but not served")
        }
        // The brief's paths, each documented.
        let required = ["POST /api/v1/activities", "GET /api/v1/activities", "GET /api/v1/activities/{id}", "PATCH /api/v1/activities/{id}",
                        "POST /api/v1/activities/{id}/dismiss", "DELETE /api/v1/activities/{id}", "DELETE /api/v1/activities",
                        "GET /api/v1/status", "GET /api/v1/history", "GET /api/v1/apps", "GET /api/v1/apps/{name}", "PUT /api/v1/apps/{name}",
                        "DELETE /api/v1/apps/{name}", "POST /api/v1/rotation/next", "POST /api/v1/rotation/previous", "POST /api/v1/rotation/switch", "POST /api/v1/suspend", "POST /api/v1/resume", "PUT /api/v1/quiet",
                        "GET /api/v1/screen.png", "GET /api/v1/screen/stream", "POST /api/v1/alertmanager", "POST /api/v1/grafana",
                        "POST /message", "POST /api/notify", "POST /{topic}", "PUT /{topic}", "POST /", "GET /", "GET /healthz"]
        for name in required {
            #expect(documented.contains { "\($0.method) \($0.path)" == name }, "\(name) is not in the OpenAPI file")
        }
    }

    @Test func h1_everyErrorAnswerIsTheErrorSchema() throws {
        let document = try Self.document()
        guard case .object(let responses)? = document["components"]?["responses"] else { Issue.record("no shared responses"); return }
        for (name, response) in responses {
            #expect(response["content"]?["application/json"]?["schema"]?["$ref"]?.text == "#/components/schemas/Error", "\(name)")
        }
        let error = try #require(document["components"]?["schemas"]?["Error"]?["properties"]?["error"])
        #expect(error["required"]?.items.compactMap(\.text) == ["status", "code", "message"])
    }
}

extension OpenAPIDocumentTests {
    /// schemathesis found a title of 513 code points (512 characters on the glass: a letter and
    /// its spacing mark are one) that nook-http took and then answered with, against the file's
    /// `maxLength`. The file and the limits now count alike; this keeps their numbers alike.
    @Test func h1_theFilesTextLimitsAreTheActivityLimitsInCodePoints() throws {
        let document = try Self.document()
        let limits = ["title": NookActivity.Limits.title, "subtitle": NookActivity.Limits.subtitle,
                      "icon": NookActivity.Limits.systemImage, "key": NookActivity.Limits.coalescingKey]
        for schema in ["Activity", "ActivityCreate", "ActivityChanges"] {
            for (field, limit) in limits {
                let property = try #require(document["components"]?["schemas"]?[schema]?["properties"]?[field], "\(schema).\(field)")
                #expect(property["maxLength"] == .number(Double(limit.characters)), "\(schema).\(field)'s maxLength")
                // Counted as JSON Schema counts: one code point over is refused, whatever a
                // person would count (here half as many characters).
                let oneOver = String(repeating: "e\u{301}", count: limit.characters / 2) + "e"
                #expect(limit.problem(with: oneOver) != nil, "\(schema).\(field): \(limit.characters + 1) code points")
            }
        }
    }
}
