import Foundation
import NookTestTraits
import Testing

/// An idle nookd wakes only for its own timers. libdispatch's first worker thread
/// arms a once-a-second timer that is never cancelled, so nookd runs Swift concurrency on
/// executors of its own and starts no libdispatch thread at all (docs/benchmarks.md, "Idle wake-ups").
@Suite("An idle nookd wakes only for its own timers", .serialized, .ownThreads)
struct IdleWakeupEndToEndTests {
    /// Whether the nookd under test (built by the compiler that builds this test) has executors
    /// of its own: they need SE-0476, which Swift 6.0 lacks (docs/platforms.md).
    #if compiler(>=6.3)
    static let ownExecutors = true
    #else
    static let ownExecutors = false
    #endif

    /// Every thread of nookd is one it named itself (libdispatch's are `…default-qos`,
    /// `…qos.overcommit`), before and after a card went through the screen; and the card's
    /// dwell, a `Clock.sleep` on nookd's executor, still ends it. Built without SE-0476, nookd
    /// runs on libdispatch's executors instead, and its threads are there.
    @Test func noLibdispatchThreadsAndSleepsStillFire() throws {
        let daemon = try DaemonProcess()
        let pid = daemon.process.processIdentifier
        if Self.ownExecutors { #expect(Self.foreignThreads(of: pid) == [], "\(Self.threadNames(of: pid))") }
        try showOneCard(on: daemon)
        if Self.ownExecutors {
            #expect(Self.foreignThreads(of: pid) == [], "\(Self.threadNames(of: pid))")
        } else {
            #expect(Self.libdispatchWorkers(of: pid) > 0, "\(Self.threadNames(of: pid))")
        }
        #expect(daemon.stop().status == 0)
    }

    /// `NOOKD_EXECUTORS=platform` puts nookd on libdispatch's executors at run time (so
    /// nook-bench can measure both from one build): its threads appear, and nookd works the same.
    @Test func thePlatformExecutorsChosenAtRunTimeServeTheSame() throws {
        let daemon = try DaemonProcess(environment: ["NOOKD_EXECUTORS": "platform"])
        let pid = daemon.process.processIdentifier
        try showOneCard(on: daemon)
        #expect(Self.libdispatchWorkers(of: pid) > 0, "\(Self.threadNames(of: pid))")
        #expect(daemon.stop().status == 0)
    }

    /// A card with a short dwell, through `enqueue --wait`: nookd's sleeps fire and it ends.
    func showOneCard(on daemon: DaemonProcess) throws {
        // Bounded: a timer that never fires would otherwise hang the test, not fail it.
        let waiter = try startNookctl(["enqueue", "--title", "Kettle", "--dwell", "0.3", "--wait"], socket: daemon.socket)
        defer { if waiter.isRunning { waiter.terminate() } }
        try eventually("the card's dwell to end it", timeout: 30) { !waiter.isRunning }
        #expect(waiter.terminationStatus == 0)
        let status = try nookctl(["status"], socket: daemon.socket)
        #expect(status.output.contains("idle, 0 pending"), "\(status.output)")
    }

    /// libdispatch's worker threads: named `…-qos`/`…overcommit` by 6.3's libdispatch; 6.0's
    /// leaves them unnamed, so they carry the process's name, `nookd`, beside the main thread.
    static func libdispatchWorkers(of pid: pid_t) -> Int {
        let names = threadNames(of: pid)
        return names.filter { $0.hasSuffix("qos") || $0.hasSuffix("overcommit") }.count + max(0, names.filter { $0 == "nookd" }.count - 1)
    }

    /// Names of the threads of `pid` that nookd did not name (it names its own `nookd.…`, and
    /// the main thread is `nookd`).
    static func foreignThreads(of pid: pid_t) -> [String] {
        threadNames(of: pid).filter { $0 != "nookd" && !$0.hasPrefix("nookd.") && !$0.hasPrefix("nook.") }
    }

    static func threadNames(of pid: pid_t) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .newlines)
        }.sorted()
    }
}
