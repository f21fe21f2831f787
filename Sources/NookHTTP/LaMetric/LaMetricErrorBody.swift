import NookProtocol

/// LaMetric Time's error body, `{"errors": [{"message": "…"}]}`, for every error answered on a
/// route that speaks LaMetric (M4): the status and header fields stay Nook's, the message says
/// Nook's code, the field and Nook's words, so a LaMetric client's log names the problem.
public enum LaMetricErrorBody {
    public static func shaped(_ response: HTTPResponse) -> HTTPResponse {
        guard let error = response.apiError else { return response }
        var entry: [(String, JSONValue)] = [("message", .string(error.message)), ("reason", .string(error.code))]
        if let field = error.field { entry.append(("field", .string(field))) }
        var answer = HTTPResponse.json(.object([("errors", .array([.object(entry)]))]), status: error.status)
        answer.headers += error.headers.filter { $0.name != "WWW-Authenticate" } + LaMetricErrorBody.challenge(error)
        answer.apiError = error
        return answer
    }

    /// LaMetric asks for Basic credentials with the user `dev`: the challenge says so.
    private static func challenge(_ error: HTTPAPIError) -> [(name: String, value: String)] {
        error.status == 401 ? [("WWW-Authenticate", "Basic realm=\"LaMetric\"")] : []
    }
}
