import NookActivities
import NookProtocol
import Testing

/// The rows of the table of operations (C1): each operation is one row, a stored property of its
/// concern in ``NookOperation/Table``, and everything the protocol says about an operation by its
/// name (``NookOperation/Name/entry``, a request's name and scope) is that row's.
@Suite("C1 one row per operation")
struct OperationRowTests {
    /// The table's rows as its stored properties hold them, read here on their own: not
    /// through the module's index of them, which is what is checked.
    static let rows: [(path: String, row: any NookOperationRow)] = Mirror(reflecting: NookOperation.table).children.flatMap { concern in
        Mirror(reflecting: concern.value).children.compactMap { member in
            (member.value as? any NookOperationRow).map { ("\(concern.label ?? "?").\(member.label ?? "?")", $0) }
        }
    }

    /// The row a request is handed to.
    struct RowOf: NookOperationVisitor {
        func visit<Fields>(_ row: NookOperation.Row<Fields>, _: Fields) -> ObjectIdentifier { ObjectIdentifier(row) }
    }

    @Test func c1_everyOperationIsOneStoredRowAndEveryStoredPropertyIsARow() {
        let members = Mirror(reflecting: NookOperation.table).children.flatMap { Mirror(reflecting: $0.value).children }
        #expect(members.count == Self.rows.count, "a concern holds something that is not a row")
        for name in NookOperation.Name.allCases {
            let rows = Self.rows.filter { $0.row.name == name }
            #expect(rows.count == 1, "\(name.rawValue): rows \(rows.map(\.path))")
            // Named as the operation is in Swift, so a key path reads as the case does.
            let path = rows.first.map(\.path) ?? ""
            #expect(path.hasSuffix(".\(name)"), "\(name.rawValue) is at \(rows.map(\.path))")
        }
        #expect(Self.rows.count == NookOperation.Name.allCases.count)
    }

    @Test(arguments: NookOperation.Name.allCases)
    func c1_whatTheProtocolSaysOfAnOperationIsItsRows(name: NookOperation.Name) throws {
        // (Into a plain optional first: Swift 6.0.3's #require cannot expand an optional chain of calls.)
        let found = Self.rows.first { $0.row.name == name }.map(\.row)
        let row = try #require(found)
        #expect(name.entry.fields == row.entry.fields)
        #expect(ObjectIdentifier(name.entry.answer) == ObjectIdentifier(row.entry.answer))
        #expect(name.entry.command == row.entry.command && name.entry.scope == row.entry.scope)
        for operation in OperationTableTests.samples(of: name) {
            #expect(operation.visit(RowOf()) == ObjectIdentifier(row), "\(operation) is handed to another row")
        }
    }

    /// U3: a row may open one request of its operation to anyone; reading quiet hours and
    /// reading the display's state are the ones.
    @Test func u3_aRowsScopeOfOneRequestIsItsOwnOrWhatItsFieldsMakeIt() {
        let differing = NookOperation.Name.allCases.flatMap { name in
            OperationTableTests.samples(of: name).filter { $0.scope != name.entry.scope }
        }
        #expect(differing == [.quiet(.status), .display(DisplaySetting()), .soundVolume(.read)])
    }
}
