import Foundation
@testable import NookDaemon
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// Paths at which a journal or history must not be started: each in a directory of its own,
/// named `file`, made as what the case says. None of them is nookd's.
struct ForeignPath {
    let kind: String
    let directory: String
    let path: String

    static func all(in scratch: Scratch, file: String) throws -> [ForeignPath] {
        var made: [ForeignPath] = []
        func make(_ kind: String, _ body: (String) throws -> Void) throws {
            let directory = scratch.path + "/" + kind.replacingOccurrences(of: " ", with: "-")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let path = directory + "/" + file
            try body(path)
            made.append(ForeignPath(kind: kind, directory: directory, path: path))
        }
        try make("a FIFO") { #expect(mkfifo($0, 0o600) == 0) }
        try make("a socket") { path in
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            #expect(bound == 0)
        }
        try make("a directory") { try FileManager.default.createDirectory(atPath: $0, withIntermediateDirectories: false) }
        // The device numbers of /dev/null (1, 3), in a directory of the test's own.
        try make("a character device") { #expect(mknod($0, S_IFCHR | 0o600, 0x103) == 0, "mknod: \(errno)") }
        try make("a symbolic link") { path in
            let target = path + ".target"
            try Data("kept\n".utf8).write(to: URL(fileURLWithPath: target))
            #expect(symlink(target, path) == 0)
        }
        try make("not nookd's") { try Data("just one line of someone's notes\n".utf8).write(to: URL(fileURLWithPath: $0)) }
        return made
    }

    /// What an untouched path still is: the same inode, kind and device, the same bytes, and
    /// nothing added beside it.
    var fingerprint: String {
        var info = stat()
        guard lstat(path, &info) == 0 else { return "missing" }
        // Only what opens as a regular file is read (a link's target among them): an open of the
        // FIFO blocks until a writer comes, which Swift 6.0's Foundation waits for, forever.
        var target = stat()
        let regular = stat(path, &target) == 0 && target.st_mode & S_IFMT == S_IFREG
        let bytes = regular ? (try? Data(contentsOf: URL(fileURLWithPath: path))).map { String(decoding: $0, as: UTF8.self) } ?? "" : ""
        let listing = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
        return "\(info.st_ino) \(info.st_mode) \(info.st_rdev) \(info.st_mode & S_IFMT == S_IFDIR ? "" : bytes) \(listing)"
    }
}

@Suite("J1 U4 a journal or history path that is not nookd's is refused and left untouched", .serialized, .ownThreads)
struct ForeignPathTests {
    @Test func j1_aJournalPathThatIsNotARegularFileOrNotAJournalIsRefusedAndLeftUntouched() throws {
        let scratch = Scratch()
        for foreign in try ForeignPath.all(in: scratch, file: "journal") {
            let before = foreign.fingerprint
            let journal = ActivityJournal(path: foreign.path, warn: { _ in })
            let recovery = journal.recover()
            let refusal = try #require(recovery.refusal, "\(foreign.kind)")
            #expect(refusal.hasPrefix("journal \(foreign.path) "), "\(refusal)")
            let expected = foreign.kind == "not nookd's" ? "does not start with a journal record" : "is \(foreign.kind)"
            #expect(refusal.contains(expected), "\(refusal)")
            #expect(foreign.fingerprint == before, "\(foreign.kind) was changed")
        }
    }

    @Test func u4_aHistoryPathThatIsNotARegularFileOrNotAHistoryIsRefusedAndLeftUntouched() async throws {
        let scratch = Scratch()
        for foreign in try ForeignPath.all(in: scratch, file: "history") {
            let before = foreign.fingerprint
            let history = ActivityHistory(path: foreign.path, warn: { _ in })
            let refusal = try #require(history.refusal(), "\(foreign.kind)")
            #expect(refusal.hasPrefix("history \(foreign.path) "), "\(refusal)")
            // Started anyway (a path swapped after nookd's check): memory only, nothing written.
            let warnings = history.start()
            #expect(warnings.first?.contains("keeping the history in memory only") == true, "\(warnings)")
            let card = NookActivity(title: "after")
            history.record([NookActivityEvent(activity: card, kind: .enqueued, at: .origin, module: "default")], module: "default")
            history.record([NookActivityEvent(activity: card, kind: .hidden(.completed), at: .origin, module: "default")], module: "default")
            #expect(history.query(HistoryQuery()).entries.map(\.activity.title) == ["after"])
            #expect(await history.clear(sentBy: nil).removed == 1)
            #expect(await history.finish(within: .seconds(30)))
            #expect(foreign.fingerprint == before, "\(foreign.kind) was changed")
        }
    }

    @Test func j1_u4_nookdRefusesToStartOnAJournalOrHistoryPathThatIsNotItsOwnAndTouchesNothing() throws {
        let scratch = Scratch()
        for foreign in try ForeignPath.all(in: scratch, file: "journal") {
            let before = foreign.fingerprint
            let daemon = try DaemonProcess.exited(scratch: scratch, arguments: ["--journal", foreign.path])
            #expect(daemon.process.terminationStatus != 0, "\(foreign.kind)")
            #expect(daemon.log.contains("journal \(foreign.path) "), "\(foreign.kind): \(daemon.log.suffix(2000))")
            #expect(foreign.fingerprint == before, "\(foreign.kind) was changed")
        }
        let histories = Scratch()
        for foreign in try ForeignPath.all(in: histories, file: "history") {
            let before = foreign.fingerprint
            let config = scratch.file("history.toml", "[history]\npath = \"\(foreign.path)\"\n")
            let daemon = try DaemonProcess.exited(scratch: scratch, arguments: ["--journal", scratch.path + "/journal", "--config", config])
            #expect(daemon.process.terminationStatus != 0, "\(foreign.kind)")
            #expect(daemon.log.contains("history \(foreign.path) "), "\(foreign.kind): \(daemon.log.suffix(2000))")
            #expect(foreign.fingerprint == before, "\(foreign.kind) was changed")
            #expect(!FileManager.default.fileExists(atPath: scratch.path + "/journal"), "nothing is started before the check")
        }
    }

    @Test func u4_aHistoryPathThatIsTheJournalIsRefusedAtStartAndTheJournalKept() throws {
        let scratch = Scratch()
        let journal = scratch.path + "/journal"
        // A journal of one unfinished activity, written by a nookd.
        var daemon = try DaemonProcess(scratch: scratch, arguments: ["--journal", journal])
        try daemon.request(.suspend(module: nil))
        let kept = try #require(try daemon.request(.enqueue(NookActivity(title: "kept"), module: nil, wait: false))["id"]?.text)
        #expect(daemon.stop().status == 0)
        try FileManager.default.createDirectory(atPath: scratch.path + "/sub", withIntermediateDirectories: true)
        link(journal, scratch.path + "/hardlink")
        for same in [journal, scratch.path + "/sub/../journal", scratch.path + "/./journal.new", scratch.path + "/hardlink"] {
            let before = try Data(contentsOf: URL(fileURLWithPath: journal))
            let config = scratch.file("same.toml", "[history]\npath = \"\(same)\"\n")
            daemon = try DaemonProcess(scratch: scratch, arguments: ["--journal", journal, "--config", config], waitUntilReady: false)
            // Bounded for a nookd that starts instead: it is then stopped, and the test fails.
            guard daemon.process.exited(within: TestBounds.seconds(30)) else {
                Issue.record("nookd started with history \(same): \(daemon.log.suffix(2000))")
                _ = daemon.stop()
                continue
            }
            #expect(daemon.process.terminationStatus != 0, "\(same)")
            #expect(daemon.log.contains("journal \(journal) and history \(same) are one file"), "\(same): \(daemon.log.suffix(2000))")
            #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == before, "\(same): the journal was changed")
        }
        unlink(scratch.path + "/hardlink")
        daemon = try DaemonProcess(scratch: scratch, arguments: ["--journal", journal])
        #expect(try queued(daemon) == [kept], "the journal still holds the unfinished activity")
        #expect(daemon.stop().status == 0)
    }

    /// Before either file exists, one directory reached two ways (a link to it, a relative
    /// path): the first start would make the journal, then read and rewrite it as the history.
    @Test func u4_aHistoryPathInTheJournalsDirectoryReachedAnotherWayIsRefusedBeforeEitherExists() throws {
        let scratch = Scratch()
        let journal = scratch.path + "/journal"
        #expect(symlink(scratch.path, scratch.path + "/linked") == 0)
        for same in [scratch.path + "/linked/journal", scratch.path + "/linked/journal.new"] {
            #expect(DurableFile.sharing(journal: journal, history: same) != nil, "\(same)")
            #expect(DurableFile.sharing(journal: same, history: journal) != nil, "\(same)")
        }
        let relative = String(repeating: "../", count: FileManager.default.currentDirectoryPath.split(separator: "/").count)
            + String(scratch.path.dropFirst()) + "/journal"
        #expect(DurableFile.sharing(journal: journal, history: relative) != nil, "\(relative)")
        #expect(DurableFile.sharing(journal: journal, history: scratch.path + "/linked/history") == nil)
        #expect(!FileManager.default.fileExists(atPath: journal))
    }

    @Test func j1_aLeftoverNewFileThatIsNotRegularIsNeitherRemovedNorOpened() async throws {
        let scratch = Scratch()
        let path = scratch.path + "/journal"
        #expect(mkfifo(path + ".new", 0o600) == 0)
        let warnings = Warnings()
        let journal = ActivityJournal(path: path, warn: warnings.sink)
        let recovery = journal.recover()
        #expect(recovery.refusal == nil)
        #expect(journal.degraded, "the fresh journal could not be made beside a FIFO named journal.new")
        var info = stat()
        #expect(lstat(path + ".new", &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        #expect(warnings.all.first?.contains("\(path).new is a FIFO, not nookd's: remove it") == true, "\(warnings.all)")
        await journal.finish()
        #expect(lstat(path + ".new", &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "nor at the stop's rewrite")
    }
}
