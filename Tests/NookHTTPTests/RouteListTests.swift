import Foundation
import NookHTTP
import NookProtocol
import NookTestTraits
import Testing

/// The route lists users read against the route table nook-http serves (H1): docs/http.md's
/// table, nook-http(8)'s ROUTES and the OpenAPI file each name every row, with its shape and
/// scope, and no route that is not a row.
@Suite struct RouteListTests {
    /// The files that list the routes, as the recipe "adding a route" in docs/architecture.md
    /// names them.
    static let lists = ["docs/http.md", "docs/man/nook-http.8", "docs/nook-http.openapi.json"]

    /// One route as a list writes it: `GET /healthz native read`. A public route's scope is
    /// `none`: it is served without a token.
    static func line(_ route: HTTPRoute) -> String {
        "\(route.method) \(route.pattern) \(route.shape.rawValue) \(route.isPublic ? "none" : route.scope.rawValue)"
    }

    static var rows: [String] { HTTPRouteTable.standard().routes.map(line) }

    static func text(_ file: String) throws -> String {
        try String(contentsOfFile: Built.root + "/" + file, encoding: .utf8)
    }

    /// docs/http.md's "Routes" table: `| GET | `/healthz` | native | read |`.
    static func httpMdRoutes(_ text: String) -> [String] {
        DocumentedLists.markdownSection(text, heading: "Routes").split(separator: "\n").compactMap { line -> String? in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard line.hasPrefix("| "), cells.count == 4, cells[1].hasPrefix("`"), cells[1].hasSuffix("`") else { return nil }
            return "\(cells[0]) \(cells[1].dropFirst().dropLast()) \(cells[2]) \(cells[3])"
        }
    }

    @Test func h1_everyRowIsInHttpMdsRouteListAndEveryListedRouteIsARow() throws {
        let found = DocumentedLists.disagreements(rows: Self.rows, listed: Self.httpMdRoutes(try Self.text("docs/http.md")), in: "docs/http.md")
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    @Test func h1_everyRowIsInNookHttp8AndEveryListedRouteIsARow() throws {
        let listed = DocumentedLists.manPageItems(try Self.text("docs/man/nook-http.8"), section: "ROUTES")
        let found = DocumentedLists.disagreements(rows: Self.rows, listed: listed, in: "nook-http(8)")
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    /// The OpenAPI file names no shape; its tags do: `compatible` for the senders' own shapes,
    /// `alerts` for the webhooks, a native tag for Nook's own.
    @Test func h1_theOpenAPIFileDocumentsEveryRowWithItsScopeAndTagAndNoOther() throws {
        let operations = OpenAPIDocumentTests.operations(try OpenAPIDocumentTests.document())
        let routes = HTTPRouteTable.standard().routes
        let found = DocumentedLists.differences(rows: routes.map { "\($0.method) \($0.pattern)" }, listed: operations.map { "\($0.method) \($0.path)" },
                                     in: "docs/nook-http.openapi.json")
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
        for route in routes {
            guard let operation = operations.first(where: { $0.method == route.method && $0.path == route.pattern })?.operation else { continue }
            #expect(operation["x-nook-scope"]?.text == route.scope.rawValue, "\(route.method) \(route.pattern)'s scope")
            let tags = Set(operation["tags"]?.items.compactMap(\.text) ?? [])
            let expected: Set<String> = switch route.shape {
            case .ntfy, .gotify, .awtrix, .lametric: ["compatible"]
            case .alerts: ["alerts"]
            case .native: ["activities", "history", "board", "apps", "live view", "service", "page"]
            }
            #expect(!tags.isDisjoint(with: expected), "\(route.method) \(route.pattern) speaks \(route.shape.rawValue), tagged \(tags.sorted())")
        }
    }

    /// The comparison the tests above make finds an entry on either side alone.
    @Test func h1_aRouteOnOneSideOnlyIsNamed() {
        let rows = ["GET /healthz native read", "POST /api/notify AWTRIX publish"]
        #expect(DocumentedLists.differences(rows: rows, listed: rows, in: "x").isEmpty)
        #expect(DocumentedLists.disagreements(rows: rows, listed: [], in: "x") == ["x lists nothing: its list was not found"])
        #expect(DocumentedLists.differences(rows: rows + ["POST /api/v1/lametric LaMetric publish"], listed: rows, in: "x")
            == ["POST /api/v1/lametric LaMetric publish: a row that x does not list"])
        #expect(DocumentedLists.differences(rows: rows, listed: rows + ["GET /api/stats AWTRIX read"], in: "x")
            == ["GET /api/stats AWTRIX read: listed in x, but no row of the table"])
        #expect(DocumentedLists.differences(rows: rows, listed: rows + [rows[0]], in: "x") == ["GET /healthz native read: listed twice in x"])
        // A shape or scope that differs is a difference too.
        #expect(DocumentedLists.differences(rows: rows, listed: ["GET /healthz native admin", rows[1]], in: "x").count == 2)
    }

    @Test func h1_theListsAreReadAsTheyAreWritten() {
        let markdown = "intro\n## Routes\n\n| method | path | speaks | scope |\n|---|---|---|---|\n| GET | `/healthz` | native | read |\n\n## Next\n| POST | `/x` | ntfy | publish |\n"
        #expect(Self.httpMdRoutes(markdown) == ["GET /healthz native read"])
        let page = ".Sh DESCRIPTION\n.It Li GET Ta Li /no Ta native Ta read\n.Sh ROUTES\ntext\n.Bl -column\n.It Li GET Ta Li /healthz Ta native Ta read\n.El\n.Sh FILES\n"
        #expect(DocumentedLists.manPageItems(page, section: "ROUTES") == ["GET /healthz native read"])
    }
}

/// docs/architecture.md's recipe "Adding a route": each list of files it gives has as many
/// files as it says, each file is there and declares what the recipe says it does, and the
/// route lists the tests hold to the table are among them.
@Suite struct AddingARouteRecipeTests {
    /// The recipe's lists: the count each says (`…, 4 files:`) and the first file of each item.
    static func lists(in text: String) -> [(count: Int, files: [String])] {
        let body = DocumentedLists.markdownSection(text, heading: "Adding a route")
        var lists: [(count: Int, files: [String])] = []
        for line in body.split(separator: "\n") {
            if line.hasSuffix(" files:"), let count = line.dropLast(" files:".count).split(separator: " ").last.flatMap({ Int($0) }) {
                lists.append((count, []))
            } else if let first = line.first, first.isNumber, line.contains(". `"), !lists.isEmpty {
                let file = line.split(separator: "`", omittingEmptySubsequences: false)[1]
                lists[lists.count - 1].files.append(String(file))
            }
        }
        return lists
    }

    @Test func h1_theRecipeNamesAsManyFilesAsItCountsAndEachIsThere() throws {
        let text = try RouteListTests.text("docs/architecture.md")
        let lists = Self.lists(in: text)
        #expect(lists.count == 2, "an HTTP route's files and an MQTT topic's")
        for list in lists {
            #expect(list.files.count == list.count, "the recipe says \(list.count) files and names \(list.files)")
            for file in list.files {
                #expect(FileManager.default.fileExists(atPath: Built.root + "/" + file), "\(file) is there")
            }
        }
        let named = Set(lists.flatMap(\.files))
        for list in RouteListTests.lists + ["docs/mqtt.md", "docs/man/nook-mqtt.8"] {
            #expect(named.contains(list), "the recipe names \(list), which the tests hold to the table")
        }
        // The code file of each list is where its rows are declared.
        let code = lists.compactMap { $0.files.first { $0.hasPrefix("Sources/") } }
        #expect(code.count == 2)
        for (file, row) in zip(code, ["HTTPRoute(", "MQTTTopicRow("]) {
            let content = try RouteListTests.text(file)
            #expect(content.contains(row), "\(file) declares \(row)…)")
        }
    }

    @Test func h1_theRecipesListsAreReadAsWritten() {
        let text = "x\n## Adding a route\n\nAn HTTP route, 2 files:\n\n1. `a.swift`: a row.\n   more `b.swift`\n2. `docs/x.md`: a line.\n\n"
            + "A topic, 1 files:\n\n1. `c.swift`: a row.\n\n## Next\n\nThe rest, 1 files:\n1. `d.swift`\n"
        let lists = Self.lists(in: text)
        #expect(lists.map(\.count) == [2, 1] && lists.map(\.files) == [["a.swift", "docs/x.md"], ["c.swift"]])
    }
}
