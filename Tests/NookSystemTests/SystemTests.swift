import Glibc
import NookSystem
import Testing

@Suite struct SystemCallErrorTests {
    @Test func namesTheCallTheSubjectAndTheErrno() {
        let error = SystemCallError("open", errno: .permissionDenied, subject: "/dev/dri/card0")
        #expect(error.description == "'open' failed for /dev/dri/card0: (13) Permission denied")
        #expect(SystemCallError("pipe", errno: .tooManyOpenFiles).description == "'pipe' failed: (24) Too many open files")
    }

    @Test func aFailingCallThrowsWithTheErrnoItSet() {
        #expect(throws: SystemCallError("open", errno: .noSuchFileOrDirectory, subject: "/nonexistent/nook")) {
            _ = try FileDescriptor.open("/nonexistent/nook", O_RDONLY)
        }
    }
}

@Suite struct FileDescriptorTests {
    @Test func theOwnerClosesItsDescriptorWhenItEnds() throws {
        var number: Int32 = -1
        do {
            let file = try FileDescriptor.open("/dev/null", O_RDONLY)
            number = file.rawValue
            #expect(fcntl(number, F_GETFD) >= 0)
            #expect(fcntl(number, F_GETFD) & FD_CLOEXEC != 0, "opened close-on-exec")
        }
        #expect(fcntl(number, F_GETFD) == -1 && errno == EBADF)
    }

    @Test func writesAllAndReadsBack() throws {
        let path = "/tmp/nook-system-\(getpid())-rw"
        defer { unlink(path) }
        let bytes = Array("hello, nook\n".utf8)
        do {
            let file = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
            try bytes.withUnsafeBytes { try file.writeAll($0) }
        }
        #expect(try readRegularFile(path, limit: 100) == bytes)
    }
}

@Suite struct RegularFileSizeTests {
    /// A file that reports no size (/proc) is read whole past its first buffer, and a small file
    /// under a large limit reads the same: the buffer follows the file, not the limit (the
    /// journal's 64 MiB limit once cost 64 MiB at every start).
    @Test func aFileWithoutASizeIsReadWholeAndTheLimitIsNotTheBuffer() throws {
        let maps = try readRegularFile("/proc/self/maps", limit: 4 << 20)
        #expect(maps.count > 4096, "\(maps.count) bytes")
        #expect(maps.last == UInt8(ascii: "\n"))
        let path = "/tmp/nook-system-\(getpid())-small"
        defer { unlink(path) }
        let bytes = Array("small\n".utf8)
        do {
            let file = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
            try bytes.withUnsafeBytes { try file.writeAll($0) }
        }
        // RUSAGE_THREAD (1; Glibc hides it behind _GNU_SOURCE): this thread's faults only, not
        // those of the tests beside it (the whole process's counted 1,385 in an ASan pass).
        let thread = __rusage_who_t(1)
        var usage = rusage()
        getrusage(thread, &usage)
        let before = usage.ru_minflt
        #expect(try readRegularFile(path, limit: 256 << 20) == bytes)
        getrusage(thread, &usage)
        // Zero-filling 256 MiB would fault in 65,536 pages.
        #expect(usage.ru_minflt - before < 1000, "\(usage.ru_minflt - before) page faults")
    }
}

@Suite struct RegularFileTests {
    let directory: String = {
        var template = Array("/tmp/nook-system-XXXXXX".utf8CString)
        return String(cString: mkdtemp(&template)!)
    }()

    /// A FIFO with no writer blocks open(2) and read(2) forever unless refused before reading.
    @Test func aFIFOIsRefusedWithoutBlocking() throws {
        let path = directory + "/fifo"
        #expect(mkfifo(path, 0o600) == 0)
        #expect(throws: FileReadError.notRegular(path: path, kind: "a FIFO")) { _ = try readRegularFile(path, limit: 1024) }
    }

    @Test func devicesAndDirectoriesAreRefused() {
        #expect(throws: FileReadError.notRegular(path: "/dev/zero", kind: "a character device")) {
            _ = try readRegularFile("/dev/zero", limit: 1024)
        }
        #expect(throws: FileReadError.notRegular(path: directory, kind: "a directory")) {
            _ = try readRegularFile(directory, limit: 1024)
        }
    }

    @Test func aFileOverTheLimitIsRefusedBeforeItIsRead() throws {
        let path = directory + "/huge"
        let file = try FileDescriptor.open(path, O_WRONLY | O_CREAT, mode: 0o600)
        #expect(ftruncate(file.rawValue, 1 << 40) == 0, "a sparse terabyte costs no disk")
        #expect(throws: FileReadError.tooLarge(path: path, bytes: 1 << 40, limit: 1 << 20)) {
            _ = try readRegularFile(path, limit: 1 << 20)
        }
    }

    @Test func aMissingFileNamesOpenAndTheErrno() {
        let path = directory + "/missing"
        #expect(throws: FileReadError.systemCall(SystemCallError("open", errno: .noSuchFileOrDirectory, subject: path))) {
            _ = try readRegularFile(path, limit: 10)
        }
    }
}

@Suite struct SocketAndPollTests {
    @Test func socketPathsLongerThanSunPathAreRefused() {
        #expect(UnixSocketAddress(path: String(repeating: "a", count: UnixSocketAddress.maximumPathLength)) != nil)
        #expect(UnixSocketAddress(path: String(repeating: "a", count: UnixSocketAddress.maximumPathLength + 1)) == nil)
        #expect(UnixSocketAddress(path: "") == nil)
    }

    @Test func connectingToNothingNamesConnectAndThePath() throws {
        let socket = try FileDescriptor.unixSocket(SOCK_STREAM, name: "test")
        let address = try #require(UnixSocketAddress(path: "/nonexistent/nook.sock"))
        #expect(throws: SystemCallError("connect", errno: .noSuchFileOrDirectory, subject: "/nonexistent/nook.sock")) {
            try socket.connect(to: address)
        }
    }

    @Test func theWakePipeWakesAPollAndIsQuietAfterDraining() throws {
        let pipe = try WakePipe()
        var entries = [pipe.pollEntry]
        #expect(try pollDescriptors(&entries, timeoutMilliseconds: 0) == 0)
        pipe.wake()
        pipe.wake()
        entries = [pipe.pollEntry]
        #expect(try pollDescriptors(&entries, timeoutMilliseconds: 0) == 1)
        pipe.drain()
        entries = [pipe.pollEntry]
        #expect(try pollDescriptors(&entries, timeoutMilliseconds: 0) == 0)
    }

    @Test func directoryEntriesLeaveOutDotAndDotDot() throws {
        let names = try directoryEntries("/dev")
        #expect(names.contains("null") && !names.contains(".") && !names.contains(".."), "\(names.sorted())")
        #expect(throws: SystemCallError("opendir", errno: .noSuchFileOrDirectory, subject: "/nonexistent")) { _ = try directoryEntries("/nonexistent") }
    }
}
