import NookActivities
@testable import NookDaemon
import NookProtocol
import Testing

/// nookd's half of the operations' table (C1): each operation of the protocol's table has
/// exactly one handler among the rows the concerns register, and the scope the dispatch checks
/// is the table's.
@Suite("C1 nookd's handlers, one per operation of the table")
struct OperationHandlerTests {
    @Test func c1_everyOperationOfTheTableHasExactlyOneHandler() {
        let names = Daemon.operationHandlerRows.map(\.name)
        for name in NookOperation.Name.allCases {
            #expect(names.filter { $0 == name }.count == 1, "\(name.rawValue): \(names.filter { $0 == name }.count) handlers")
        }
        #expect(Daemon.operationHandlers.count == NookOperation.Name.allCases.count)
    }

    /// U3, C4: the whole-device changes are refused to non-admins by the dispatch, with the
    /// words their refusals always used; reading quiet hours stays open.
    @Test func u3_c4_theWholeDeviceChangesAreTheTablesAndReadingQuietHoursIsOpen() {
        let device = NookOperation.Name.allCases.compactMap { name -> String? in
            if case .device(let words) = name.entry.scope { return "\(name.rawValue): \(words)" }
            return nil
        }
        #expect(device == ["suspend: suspend", "resume: resume", "quiesce: quiesce", "home: set the home content",
                           "focus: switch the foreground module", "quiet: change quiet hours", "indicator: set the indicator lights",
                           "display: switch the display off or on, or set its brightness", "sound-volume: set the volume"])
        #expect(NookOperation.quiet(.status).scope == .anyone)
        #expect(NookOperation.quiet(.on).scope == .device("change quiet hours"))
        #expect(NookOperation.press(.open).scope == .debug)
    }

    /// Every operation of the table reaches its handler, with the fields its row read and the
    /// scope its row gives: the dispatch is derived from the rows, so nothing else lists them.
    @Test(arguments: NookOperation.Name.allCases)
    func c1_everyOperationReachesItsHandlerFromItsRow(name: NookOperation.Name) {
        let operation = OperationDispatchTests.request(name, card: NookActivityID(), other: NookActivityID())
        let dispatch = operation.visit(OperationHandler.Dispatch())
        #expect(dispatch.name == name)
        #expect(dispatch.scope == operation.scope)
        #expect(dispatch.call != nil, "\(name.rawValue) has no handler the dispatch can call")
    }
}
