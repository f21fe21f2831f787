import NookLogging
import NookActivities
import NookDisplay
import NookRender

extension Service {
    /// Before anything is read or written: a journal or history path that is not nookd's (a
    /// device, a FIFO, a link, someone else's file) is an error, never replaced.
    final class StateFiles: DaemonService {
        typealias Section = NoSection
        static let name = "state files"
        static var needs: [any DaemonService.Type] { [] }
        /// Their files are checked before either opens them.
        static var uses: [any DaemonService.Type] { [Journal.self, History.self] }

        private let journal: ActivityJournal?
        private let history: ActivityHistory

        init(journal: ActivityJournal?, history: ActivityHistory) {
            (self.journal, self.history) = (journal, history)
        }

        func start(_ section: NoSection) async throws(DaemonError) {
            let sharing = journal.flatMap { journal in history.path.flatMap { DurableFile.sharing(journal: journal.path, history: $0) } }
            if let refusal = sharing ?? journal?.refusal() ?? history.refusal() { throw DaemonError(refusal) }
        }
    }
}

extension Service.StateFiles: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.StateFiles {
        Service.StateFiles(journal: try wiring.part(Service.Journal.self).journal, history: try wiring.part(Service.History.self).history)
    }
}
