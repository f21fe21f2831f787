import Foundation
import NookActivities
import NookProtocol
import NookTestTraits
import Testing

/// A real small file system (tmpfs) that a test can fill: what a full disk does to the journal
/// and the history is seen as nookd sees it, through the kernel's ENOSPC.
final class SmallDisk {
    let path: String

    /// Whether this process may mount a tmpfs (root, not in a container that forbids it).
    static let mountable: Bool = {
        let probe = "/tmp/nook-tmpfs-probe-\(getpid())"
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard (try? run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe]))?.status == 0 else { return false }
        _ = try? run("/bin/umount", [probe])
        return true
    }()
    static let skipReason: Comment = "needs to mount a tmpfs (root, and a kernel and container that permit mount)"

    /// `size` and `inodes` as mount(8)'s tmpfs options take them.
    init(in scratch: Scratch, size: String = "512k", inodes: Int = 64) throws {
        path = scratch.path + "/disk"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let mounted = try run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),nr_inodes=\(inodes),mode=0755", "tmpfs", path])
        guard mounted.status == 0 else { throw DaemonFailure("mount failed: \(mounted.error)") }
    }

    /// Takes every free block and inode, in files named `fill-N`.
    func fill() {
        var number = 0
        while true {
            let fd = open(path + "/fill-\(number)", O_WRONLY | O_CREAT | O_EXCL, 0o600)
            if fd < 0 { break }
            number += 1
            let block = [UInt8](repeating: 0x55, count: 4096)
            while block.withUnsafeBytes({ write(fd, $0.baseAddress!, $0.count) }) > 0 {}
            close(fd)
        }
        #expect(errno == ENOSPC, "filling stopped on errno \(errno)")
    }

    func free() {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] where name.hasPrefix("fill-") {
            unlink(path + "/" + name)
        }
    }

    deinit { _ = try? run("/bin/umount", ["-l", path]) }
}

/// J1 U4 on a disk that fills: while the journal or the history cannot be written nookd keeps
/// them in memory (answers say so); once it can, and when it stops, it writes them whole, so a
/// restart brings back neither what ended nor loses what came while the disk was full.
@Suite("J1 U4 a full disk: memory-only journal and history, rewritten whole", .serialized, .ownThreads,
       .enabled(if: SmallDisk.mountable, SmallDisk.skipReason))
struct FullDiskTests {
    /// The answer's warning, if any (nil: saved).
    func send(_ daemon: DaemonProcess, _ operation: NookOperation) throws -> (result: JSONValue, warning: String?) {
        let client = try daemon.client()
        let result = try client.request(Request(id: .number(1), operation: operation))
        return (result, client.warning)
    }

    @Test func j1_changesMadeWhileTheDiskWasFullSurviveAStopRightAfterItFrees() throws {
        let scratch = Scratch()
        let disk = try SmallDisk(in: scratch)
        let arguments = ["--journal", disk.path + "/journal"]
        var daemon = try DaemonProcess(scratch: scratch, arguments: arguments)
        var blocker = NookActivity(title: "A", dwell: .seconds(3600))
        blocker.presentation = .blocker(timeout: nil)
        let a = try #require(try send(daemon, .enqueue(blocker, module: nil, wait: false)).result["id"]?.text)
        let b = try #require(try send(daemon, .enqueue(NookActivity(title: "B", dwell: .seconds(3600)), module: nil, wait: false)).result["id"]?.text)
        try eventually("A on the glass", timeout: 30) { try queued(daemon) == [a, b] && (try daemon.request(.list(module: nil)))["modules"]?.items.first?["current"] != .null }
        disk.fill()
        // Large enough that the slack of the journal's last page cannot hold them all.
        var cs: [String] = []
        var warnings: [String] = []
        for number in 1...3 {
            let card = NookActivity(title: "C\(number) " + String(repeating: "c", count: 400), subtitle: String(repeating: "s", count: 1000),
                                    dwell: .seconds(3600))
            let (result, warning) = try send(daemon, .enqueue(card, module: nil, wait: false))
            cs.append(try #require(result["id"]?.text))
            if let warning { warnings.append(warning) }
        }
        #expect(warnings.last?.contains("No space left on device") == true, "\(warnings)")
        #expect(try send(daemon, .dismiss(NookActivityID(a)!)).warning != nil)
        #expect(try send(daemon, .cancel(NookActivityID(b)!)).warning != nil)
        disk.free()
        let d = try #require(try send(daemon, .enqueue(NookActivity(title: "D", dwell: .seconds(3600)), module: nil, wait: false)).result["id"]?.text)
        try eventually("C1 on the glass", timeout: 30) { try queued(daemon) == cs + [d] }
        #expect(daemon.stop().status == 0)
        #expect(daemon.log.contains("journal \(disk.path)/journal: writable again"), "\(daemon.log.suffix(3000))")

        daemon = try DaemonProcess(scratch: scratch, arguments: arguments)
        #expect(try queued(daemon) == cs + [d], "what ended stays ended and what came while the disk was full is kept")
        #expect(!daemon.log.contains("torn") && !daemon.log.contains("power"), "\(daemon.log.suffix(3000))")
        #expect(daemon.stop().status == 0)
    }

    @Test func j1_aRecordCutShortByAFullDiskIsTakenBackNotLeftTorn() throws {
        let scratch = Scratch()
        let disk = try SmallDisk(in: scratch)
        let arguments = ["--journal", disk.path + "/journal"]
        var daemon = try DaemonProcess(scratch: scratch, arguments: arguments)
        try daemon.request(.suspend(module: nil))
        var saved: [String] = []
        _ = try send(daemon, .enqueue(NookActivity(title: "first"), module: nil, wait: false)).result["id"]?.text.map { saved.append($0) }
        disk.fill()
        var warned = false
        for number in 1...8 where !warned {
            let card = NookActivity(title: "card \(number) " + String(repeating: "c", count: 400), subtitle: String(repeating: "s", count: 1000))
            let (result, warning) = try send(daemon, .enqueue(card, module: nil, wait: false))
            if warning == nil { saved.append(try #require(result["id"]?.text)) } else { warned = true }
        }
        #expect(warned)
        daemon.crash()
        disk.free()

        daemon = try DaemonProcess(scratch: scratch, arguments: arguments)
        #expect(try queued(daemon) == saved)
        #expect(!daemon.log.contains("torn"), "the cut-short write was taken back: \(daemon.log.suffix(3000))")
        #expect(daemon.stop().status == 0)
    }

    @Test func u5_aHistoryClearTheFullDiskRefusesFailsAndTheStopWritesIt() throws {
        let scratch = Scratch()
        let disk = try SmallDisk(in: scratch)
        let arguments = ["--journal", disk.path + "/journal"]
        var daemon = try DaemonProcess(scratch: scratch, arguments: arguments)
        for title in ["one", "two", "three"] {
            #expect(try nookctl(["enqueue", "--title", title, "--dwell", "0.1"], socket: daemon.socket).status == 0)
        }
        func entries() throws -> [HistoryEntry] {
            let result = try nookctl(["history", "--json"], socket: daemon.socket)
            return try HistoryAnswer(json: JSONValue.parse(Array(result.output.utf8))).entries
        }
        try eventually("three entries", timeout: 30) { try entries().count == 3 }
        disk.fill()
        let cleared = try nookctl(["history", "clear"], socket: daemon.socket)
        #expect(cleared.status != 0, "\(cleared)")
        #expect(cleared.error.contains("No space left on device") && cleared.error.contains("come back after a restart"), "\(cleared)")
        #expect(!cleared.output.contains("cleared 3 entries"), "\(cleared)")
        #expect(try entries().isEmpty, "gone from nookd's memory")
        disk.free()
        #expect(daemon.stop().status == 0)
        let stopped = daemon.log

        daemon = try DaemonProcess(scratch: scratch, arguments: arguments)
        #expect(try entries().isEmpty, "the stop wrote the cleared history; the stopped nookd said: \(stopped.suffix(3000))")
        #expect(daemon.stop().status == 0)
    }
}
