import Testing
import NookHTTP
import NookProtocol

@Suite struct HTTPAPIErrorTests {
    @Test func h1_anErrorIsJSONNamingTheFieldWithItsStatus() throws {
        let error = HTTPAPIError(status: 422, code: "invalid_field", field: "priority", message: "priority must be one of low, normal, high",
                                 headers: [("Retry-After", "1")])
        let response = error.response
        #expect(response.status == 422)
        #expect(response.headers.contains { $0.name == "Retry-After" && $0.value == "1" })
        let body = try JSONValue.parse(response.body)
        #expect(body["error"]?["field"]?.text == "priority")
        #expect(body["error"]?["code"]?.text == "invalid_field")
        #expect(body["error"]?["status"]?.numberValue == 422)
    }
}
