import NookActivities

/// The operations on the modules' queues (Q7, Q8, Q12) and on which module is in front.
public struct ModuleOperations: Sendable {
    typealias Row = NookOperation.Row

    public let suspend = Row<String?>(
        .suspend, fields: ["module"], answer: ModulesAnswer.self, command: .subcommand, scope: .device("suspend"),
        make: { .suspend(module: $0) }, decode: { reader throws(ProtocolError) in try reader.module() }, encode: moduleField)

    public let resume = Row<String?>(
        .resume, fields: ["module"], answer: ModulesAnswer.self, command: .subcommand, scope: .device("resume"),
        make: { .resume(module: $0) }, decode: { reader throws(ProtocolError) in try reader.module() }, encode: moduleField)

    public let quiesce = Row<String?>(
        .quiesce, fields: ["module"], answer: ModulesAnswer.self, command: .subcommand, scope: .device("quiesce"),
        make: { .quiesce(module: $0) }, decode: { reader throws(ProtocolError) in try reader.module() }, encode: moduleField)

    /// The page starting after `after` (a previous page's ``ListAnswer/cursor``), or, as
    /// version-1 clients before cursors page, `offset` activities in; `limit`: at most that many.
    public let list = Row<(module: String?, offset: Int, after: ListCursor?, limit: Int?)>(
        .list, fields: ["module", "offset", "after", "limit"], answer: ListAnswer.self, command: .subcommand,
        reads: { _ in true }, answerBytes: { _ in 64 << 10 },
        make: { .list(module: $0.module, offset: $0.offset, after: $0.after, limit: $0.limit) },
        decode: { reader throws(ProtocolError) in
            let offset = try reader.number("offset") ?? 0
            guard offset >= 0, offset <= 1e9, offset == offset.rounded() else {
                throw ProtocolError(.invalid, field: "offset", "must be a whole number from 0, got \(offset)")
            }
            var after: ListCursor?
            if let text = try reader.string("after") {
                guard let cursor = ListCursor(text: text) else {
                    throw ProtocolError(.invalid, field: "after", "is not a cursor this nookd gave: pass a list answer's `cursor` back as it came")
                }
                guard offset == 0 else { throw ProtocolError(.invalid, field: "offset", "cannot be given with `after`: a page starts at one or the other") }
                after = cursor
            }
            let limit = try reader.number("limit", in: 1...Double(ListAnswer.maximumLimit))
            if let limit, limit != limit.rounded() { throw ProtocolError(.invalid, field: "limit", "must be a whole number, got \(limit)") }
            return (try reader.module(), Int(offset), after, limit.map { Int($0) })
        },
        encode: { request in
            moduleField(request.module) + (request.offset > 0 ? [("offset", .number(Double(request.offset)))] : [])
                + (request.after.map { [("after", .string($0.text))] } ?? []) + (request.limit.map { [("limit", .number(Double($0)))] } ?? [])
        })

    public let focus = Row<String>(
        .focus, fields: ["module"], answer: FocusAnswer.self, command: .subcommand, scope: .device("switch the foreground module"),
        make: { .focus(module: $0) },
        decode: { reader throws(ProtocolError) in
            guard let name = try reader.module() else { throw ProtocolError(.missingField, field: "module", "is required") }
            return name
        },
        encode: { moduleField($0) })
}
