import NookActivities

extension NookOperation {
    /// One operation of the protocol, declared once (mako's `service_vtable`: one row a name):
    /// its wire name, the fields its request may carry and how they are read and written, what
    /// it is answered with, who may ask and where nookctl offers it. `Fields` is the case's
    /// values, as nookd's handler of the row receives them. Everything else that lists
    /// operations (the decoder, the encoder, nookd's dispatch, nookctl's subcommands) reads
    /// the rows; a row is one stored property of its concern in ``Table``.
    public final class Row<Fields: Sendable>: NookOperationRow {
        public let name: Name
        public let entry: Entry
        /// The request's fields after `op`, as ``Request/encoded()`` writes them.
        let encode: @Sendable (Fields) -> [(String, JSONValue)]
        /// Who may make a request with these fields where it is not ``Entry/scope`` (nil where it is).
        let scopeOf: (@Sendable (Fields) -> Scope?)?
        /// Whether a request with these fields only reads the state (``NookOperation/changesSomething``).
        let reads: @Sendable (Fields) -> Bool
        /// About the most its answer takes (``NookOperation/expectedAnswerBytes``).
        let answerBytes: @Sendable (Fields) -> Int

        init(_ name: Name, fields: [String], answer: any NookAnswer.Type, command: Command, scope: Scope = .anyone,
             scopeOf: (@Sendable (Fields) -> Scope?)? = nil,
             reads: @escaping @Sendable (Fields) -> Bool = { _ in false },
             answerBytes: @escaping @Sendable (Fields) -> Int = { _ in NookOperation.smallAnswerBytes },
             make: @escaping @Sendable (Fields) -> NookOperation,
             decode: @escaping @Sendable (FieldReader) throws(ProtocolError) -> Fields,
             encode: @escaping @Sendable (Fields) -> [(String, JSONValue)]) {
            self.name = name
            entry = Entry(fields: fields, answer: answer, command: command, scope: scope) { reader throws(ProtocolError) in make(try decode(reader)) }
            (self.encode, self.scopeOf, self.reads, self.answerBytes) = (encode, scopeOf, reads, answerBytes)
        }

        /// Who may make a request of this operation with `fields`.
        public func scope(of fields: Fields) -> Scope { scopeOf?(fields) ?? entry.scope }
    }

    /// What one operation is, beside its handler in nookd: its row's summary, by name.
    public struct Entry: Sendable {
        /// The fields its request may carry besides `v`, `id`, `op` and `deadline`.
        public let fields: [String]
        /// What nookd answers it with when it succeeds (the first line, for a stream).
        public let answer: any NookAnswer.Type
        public let command: Command
        /// Who may ask for it (see ``NookOperation/scope`` for one request's).
        public let scope: Scope
        /// Reads the request's fields; unknown fields were refused before.
        let decode: @Sendable (FieldReader) throws(ProtocolError) -> NookOperation
    }

    /// Every row, by concern: each concern's rows are the stored properties of its type, in its
    /// file (`AppOperations.swift` …). A new operation is a new property there; a new concern is
    /// a new property here and its `shared` at the end of this file. Read by its key paths
    /// (`\.apps.appSetAll`: nookd's handlers) and, once, by reflection (``rows``), so no list of
    /// the rows is written anywhere.
    public struct Table: Sendable {
        public let cards = CardOperations.shared
        public let modules = ModuleOperations.shared
        public let reading = ReadingOperations.shared
        public let device = DeviceOperations.shared
        public let history = HistoryOperations.shared
        public let apps = AppOperations.shared
        public let sound = SoundOperations.shared
    }

    /// The one table of operations.
    public static let table = Table()

    /// Every row of ``table``, by its name: built once, from the table's stored properties.
    /// A name without a row, or with two, is a mistake in this module: it stops the program at
    /// its first request (and `OperationTableTests` before it ships).
    static let rows: [Name: any NookOperationRow] = {
        var rows: [Name: any NookOperationRow] = [:]
        for concern in Mirror(reflecting: table).children {
            for member in Mirror(reflecting: concern.value).children {
                guard let row = member.value as? any NookOperationRow else {
                    preconditionFailure("\(concern.label ?? "?").\(member.label ?? "?") is not a row of an operation")
                }
                precondition(rows.updateValue(row, forKey: row.name) == nil, "two rows for '\(row.name.rawValue)'")
            }
        }
        precondition(rows.count == Name.allCases.count, "operations without a row: \(Name.allCases.filter { rows[$0] == nil })")
        return rows
    }()

    /// The request's wire name and its fields (after `op`), as ``Request/encoded()`` writes them.
    public var wire: (name: Name, fields: [(String, JSONValue)]) { visit(Wire()) }

    /// The operation's wire name.
    public var name: Name { visit(RowName()) }

    /// Who may make this request: its operation's ``Entry/scope``, but reading quiet hours
    /// (`quiet` with `set: status`) is open to anyone, as `status` is.
    public var scope: Scope { visit(RowScope()) }

    /// Whether carrying it out changes something, so that a lost answer leaves its outcome
    /// unknown; reading the state (status, list, history, the glass) changes nothing. Its row says.
    public var changesSomething: Bool { !visit(RowReads()) }

    /// Roughly the most its answer takes, as its row reckons it: a bridge paces its calls by it
    /// (nook-http's link to nookd), so only the pace depends on it, never what is answered.
    public var expectedAnswerBytes: Int { visit(RowAnswerBytes()) }

    /// What most answers take at most: a card's id and state, a few notes.
    static let smallAnswerBytes = 2 << 10

    private struct Wire: NookOperationVisitor {
        func visit<Fields>(_ row: Row<Fields>, _ fields: Fields) -> (name: Name, fields: [(String, JSONValue)]) { (row.name, row.encode(fields)) }
    }

    private struct RowName: NookOperationVisitor {
        func visit<Fields>(_ row: Row<Fields>, _: Fields) -> Name { row.name }
    }

    private struct RowScope: NookOperationVisitor {
        func visit<Fields>(_ row: Row<Fields>, _ fields: Fields) -> Scope { row.scope(of: fields) }
    }

    private struct RowReads: NookOperationVisitor {
        func visit<Fields>(_ row: Row<Fields>, _ fields: Fields) -> Bool { row.reads(fields) }
    }

    private struct RowAnswerBytes: NookOperationVisitor {
        func visit<Fields>(_ row: Row<Fields>, _ fields: Fields) -> Int { row.answerBytes(fields) }
    }
}

/// A row of the table of operations, whatever its fields' type.
public protocol NookOperationRow: AnyObject, Sendable {
    var name: NookOperation.Name { get }
    var entry: NookOperation.Entry { get }
}

/// What ``NookOperation/visit(_:)`` hands an operation to: its row and its values, typed as
/// the row declares them (nookd's dispatch hands them on to the row's handler).
public protocol NookOperationVisitor {
    associatedtype Result
    func visit<Fields>(_ row: NookOperation.Row<Fields>, _ fields: Fields) -> Result
}

extension NookOperation.Row where Fields == Void {
    /// The row of an operation whose request carries no fields.
    convenience init(_ name: NookOperation.Name, answer: any NookAnswer.Type, command: NookOperation.Command,
                     scope: NookOperation.Scope = .anyone, reads: Bool = false, answerBytes: Int = NookOperation.smallAnswerBytes,
                     _ operation: NookOperation) {
        self.init(name, fields: [], answer: answer, command: command, scope: scope, reads: { _ in reads }, answerBytes: { _ in answerBytes },
                  make: { _ in operation }, decode: { _ throws(ProtocolError) in () }, encode: { _ in [] })
    }
}

extension NookOperation.Name {
    /// The table's row for this operation, summed up.
    public var entry: NookOperation.Entry {
        // Every name has its row: `rows` refuses to be built otherwise.
        NookOperation.rows[self]!.entry
    }

    /// Who may make `operation`, a request of this operation (``NookOperation/scope``).
    public func scope(of operation: NookOperation) -> NookOperation.Scope { operation.scope }

    /// A request of this operation read from its fields (those after `op`), exactly as nookd
    /// reads a request line's, errors included: how a bridge turns its own clients' words
    /// (an MQTT command, a REST body) into an operation without spelling the wire name.
    public func decode(_ fields: [(String, JSONValue)]) -> Result<NookOperation, ProtocolError> {
        switch Request.decode(JSONValue.object([("op", .string(rawValue))] + fields).serializedBytes) {
        case .success(let request): .success(request.operation)
        case .failure(let failure): .failure(failure.error)
        }
    }

    /// The words that run it in nookctl (`["history", "show"]`), or nil if it is not a subcommand.
    public var commandWords: [String]? {
        switch entry.command {
        case .subcommand: [rawValue]
        case .grouped(let group, let word): [group, word]
        case .named(let word): [word]
        case .bridgesOnly: nil
        }
    }
}

// Each concern's rows, made the first time one of them is used: ``NookOperation/visit(_:)``
// reaches a row through these, so encoding one request (nookctl's) makes its concern's few rows,
// not all of them with their generic metadata (which made `table` cost nookctl's enqueue 43 % of
// its instructions under callgrind). ``NookOperation/Table`` holds the same ones.
extension CardOperations { static let shared = CardOperations() }
extension ModuleOperations { static let shared = ModuleOperations() }
extension ReadingOperations { static let shared = ReadingOperations() }
extension DeviceOperations { static let shared = DeviceOperations() }
extension HistoryOperations { static let shared = HistoryOperations() }
extension AppOperations { static let shared = AppOperations() }
extension SoundOperations { static let shared = SoundOperations() }
