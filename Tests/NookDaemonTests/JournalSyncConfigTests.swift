import NookConfig
@testable import NookDaemon
import Testing

/// `journal.sync` as nook.toml sets it (J2), beside the journal's own tests.
extension JournalSyncTests {
    @Test func j2_journalSyncIsReadFromTheConfigAndBadValuesNameTheKey() throws {
        func config(_ text: String) throws -> DaemonConfig {
            try DaemonConfig(reading: ConfigReader(try ConfigDocument(parsing: text, source: "nook.toml")))
        }
        #expect(try config("").journal.sync == .ack)
        #expect(try config("[journal]\nsync = \"interval\"\n").journal.sync == .interval)
        #expect(try config("[journal]\nsync = \"ack\"\n").journal.sync == .ack)
        #expect(throws: ConfigError.self) { try config("[journal]\nsync = \"always\"\n") }
        do {
            _ = try config("[journal]\nsync = \"always\"\n")
        } catch {
            #expect("\(error)" == "nook.toml:2: journal.sync: must be one of ack, interval, got \"always\"")
        }
        do {
            _ = try config("[journal]\nsnyc = \"ack\"\n")
            Issue.record("a misspelt key was accepted")
        } catch {
            #expect("\(error)".contains("journal.snyc"))
        }
    }
}
