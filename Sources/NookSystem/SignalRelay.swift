import Glibc
import Synchronization

/// The process's one handler of SIGTERM, SIGINT and SIGHUP (nookd's and nook-http's): it writes
/// the signal's number into a pipe, and a thread of its own (not a Dispatch signal source:
/// libdispatch's threads wake a process once a second, docs/benchmarks.md, "Idle wake-ups")
/// reads it and calls every watcher. A signal read while no one watches is held and handed to
/// the first watcher; the handlers are installed before ``hold()`` or ``watch(_:)`` returns, so
/// a signal sent after that is never lost to the default disposition.
public enum SignalRelay {
    static let numbers = [SIGTERM, SIGINT, SIGHUP]

    struct Watching {
        var watchers: [Int: @Sendable (Int32) -> Void] = [:]
        /// Read before anyone watched, in order.
        var held: [Int32] = []
        /// Given back to their default action: a signal read now acts so.
        var released = false
    }

    /// A pthread mutex, which ThreadSanitizer sees (NookSystem has no `Locked` of its own).
    final class State: @unchecked Sendable {
        let lock = ThreadCondition()
        /// Guarded by `lock`.
        private var value = Watching()
        func withLock<Result>(_ body: (inout Watching) -> Result) -> Result { lock.withLock { body(&value) } }
    }

    static let state = State()
    static let nextID = Atomic<Int>(0)
    /// The pipe's write end, read by the handler (an atomic load is async-signal-safe).
    static let writeEnd = Atomic<Int32>(-1)
    /// Set by the handler itself when SIGTERM or SIGINT arrives, before the relay's thread
    /// hears of it: a thread that must not start new work once a stop is on its way (nookd's
    /// socket, accepting) looks here, so that no thread's turn decides what it takes on.
    static let stopArrived = Atomic<Bool>(false)

    /// Whether a stop signal (SIGTERM, SIGINT) has arrived.
    public static var stopSignalled: Bool { stopArrived.load(ordering: .acquiring) }

    /// This program's name, as its messages and the relay's thread (`nookd.signals`) show it.
    static let program: String = {
        let path = CommandLine.arguments.first ?? "nook"
        return path.split(separator: "/").last.map(String.init) ?? path
    }()

    /// Made once, on the first `hold` or `watch`; the failure, if the pipe could not be made
    /// (the signals then keep their default disposition).
    static let installed: SystemCallError? = {
        let ends: (read: Int32, write: Int32)
        do throws(SystemCallError) {
            ends = try System.pipe(subject: "the signal relay")
        } catch {
            return error
        }
        for end in [ends.read, ends.write] { try? System.setCloseOnExec(end, subject: "the signal relay") }
        // The handler must never block: a full pipe already holds a wake-up.
        try? System.setNonBlocking(ends.write, subject: "the signal relay")
        writeEnd.store(ends.write, ordering: .releasing)
        let readEnd = ends.read
        // A thread's name holds 15 bytes: `nookd.signals`, `nook-http.sig`.
        let thread = "\(program).signals".utf8.count <= 15 ? "\(program).signals" : "\(program).sig"
        startThread(named: thread) {
            // A parent that left these blocked (a test runner's thread, a service manager)
            // passes its mask on: this thread, at least, takes them.
            try? System.unblockSignalsOnThisThread(numbers)
            relay(from: readEnd)
        }
        for number in numbers {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                let saved = errno
                if number == SIGTERM || number == SIGINT { SignalRelay.stopArrived.store(true, ordering: .releasing) }
                var byte = UInt8(truncatingIfNeeded: number)
                // Raw: only async-signal-safe calls here, and the wrapper may allocate an error.
                _ = write(SignalRelay.writeEnd.load(ordering: .acquiring), &byte, 1)
                errno = saved
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            try? System.setSignalAction(number, &action)
        }
        return nil
    }()

    /// Installs the handlers now, so that a signal from here on is held for the first watcher;
    /// throws if the relay's pipe cannot be made.
    public static func hold() throws(SystemCallError) {
        if let failure = installed { throw failure }
    }

    /// Adds a watcher, called on the relay's thread with each signal's number; the signals held
    /// until now are sent through the relay again, so the watcher gets them in order, as any other.
    /// The identifier for ``forget(_:)``.
    public static func watch(_ handler: @escaping @Sendable (Int32) -> Void) throws(SystemCallError) -> Int {
        if let failure = installed { throw failure }
        let id = nextID.add(1, ordering: .relaxed).newValue
        let held = state.withLock { state -> [Int32] in
            state.watchers[id] = handler
            defer { state.held = [] }
            return state.held
        }
        for number in held {
            var byte = UInt8(truncatingIfNeeded: number)
            _ = try? System.writeIfReady(writeEnd.load(ordering: .acquiring), &byte, 1)
        }
        return id
    }

    /// Stops calling the watcher (the handlers stay installed).
    public static func forget(_ id: Int) {
        _ = state.withLock { $0.watchers.removeValue(forKey: id) }
    }

    /// For a run that will not watch: the signals get their default action back, and one held
    /// meanwhile acts now.
    public static func release() {
        guard installed == nil else { return }
        let held = state.withLock { state -> [Int32] in
            state.released = true
            defer { state.held = [] }
            return state.held
        }
        for number in numbers { signal(number, SIG_DFL) }
        for number in held { raise(number) }
    }

    private static func relay(from readEnd: Int32) {
        var byte: UInt8 = 0
        while true {
            guard (try? System.read(readEnd, &byte, 1, subject: "the signal relay")) == 1 else { return }
            let number = Int32(byte)
            enum Route { case watchers([@Sendable (Int32) -> Void]), held, tooMany, raised }
            let route = state.withLock { state -> Route in
                if !state.watchers.isEmpty { return .watchers(Array(state.watchers.values)) }
                if state.released { return .raised }
                if number != SIGHUP, state.held.contains(where: { $0 != SIGHUP }) { return .tooMany }
                // One reload stands for many: the file is read once, as it is then.
                if number == SIGHUP, state.held.contains(SIGHUP) { return .held }
                state.held.append(number)
                return .held
            }
            switch route {
            case .watchers(let handlers): for handler in handlers { handler(number) }
            case .held: continue
            case .raised: raise(number)
            case .tooMany:
                writeWhole("\(program): second stop signal while starting: exiting now\n", to: 2)
                exit(1)
            }
        }
    }
}
