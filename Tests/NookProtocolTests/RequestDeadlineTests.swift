import NookActivities
import NookProtocol
import Testing

/// C1: a request's `deadline`, after which nookd does not carry it out.
@Suite("C1 a request's deadline")
struct RequestDeadlineTests {
    @Test func c1_aDeadlineRoundTripsAndIsOptional() throws {
        let request = Request(id: .number(7), operation: .cancel(NookActivityID()), deadline: 1234.5)
        let line = request.encoded()
        #expect(line.contains("\"deadline\":1234.5"), "\(line)")
        #expect(try Request.decode(Array(line.utf8)).get() == request)
        let plain = Request(id: .number(8), operation: .status)
        #expect(!plain.encoded().contains("deadline"))
        #expect(try Request.decode(Array(plain.encoded().utf8)).get().deadline == nil)
    }

    @Test func c1_aDeadlineThatIsNotANumberIsRefusedNamingIt() {
        for value in ["\"soon\"", "true", "[1]", "null"] {
            let line = #"{"id":3,"op":"status","deadline":"# + value + "}"
            guard case .failure(let failure) = Request.decode(Array(line.utf8)) else {
                Issue.record("\(value) accepted")
                continue
            }
            #expect(failure.error.field == "deadline" && failure.error.code == .wrongType, "\(value): \(failure.error)")
            #expect(failure.id == .number(3))
        }
    }
}
