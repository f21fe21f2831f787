import NookSystem
import NookTestTraits
import Testing

/// Every system call in Sources/ goes through NookSystem: inside NookSystem through the wrapper
/// (SystemCall.swift), everywhere else through a named wrapper of ``System`` (`System.read`), and
/// errno is compared as a typed ``Errno``, never as a raw number. A line that calls one of
/// `SystemCallScan.calls` outside NookSystem (even inside a wrapper's closure), or inside
/// NookSystem outside a wrapper's closure, names an errno constant or compares the global
/// `errno` fails this test, unless `SystemCallScan.allowed` lists it with a reason.
@Suite(.cpuBound, .notUnderQEMUUser("a scan of the source text, the same on every CPU: the amd64 passes run it, and emulated it took four minutes of both cores"))
struct RawSystemCallTests {
    @Test func everySystemCallGoesThroughTheWrapper() throws {
        let findings = try SystemCallScan.scan(root: SystemCallScan.sourcesDirectory)
        let raw = findings.filter { !$0.isErrno && SystemCallScan.allowed[$0.key] == nil }
        #expect(raw.isEmpty, "raw system calls outside the wrapper:\n\(raw.map(\.description).joined(separator: "\n"))")
    }

    @Test func noRawErrnoComparisonsOutsideErrno() throws {
        let findings = try SystemCallScan.scan(root: SystemCallScan.sourcesDirectory).filter(\.isErrno)
        #expect(findings.isEmpty, "raw errno values (use Errno's named values):\n\(findings.map(\.description).joined(separator: "\n"))")
    }

    @Test func everyAllowedRawCallIsStillThere() throws {
        let keys = Set(try SystemCallScan.scan(root: SystemCallScan.sourcesDirectory).map(\.key))
        let stale = SystemCallScan.allowed.keys.filter { !keys.contains($0) }
        #expect(stale.isEmpty, "allowed raw calls that no longer appear (remove them from the list): \(stale)")
    }

    @Test func theScanFindsRawCallsAndRawErrnoAndPassesWrappedOnes() {
        let lines = [
            "let fd = open(path, O_RDONLY)",
            "if count < 0 && errno == EAGAIN { return }",
            "guard Glibc.read(fd, &byte, 1) == 1 else { return }",
            "let n = try systemCall(\"read\") { read(fd, &byte, 1) }",
            "let m = try nonBlockingSystemCall(\"recv\", subject: name) {",
            "    recv(fd, &buffer, buffer.count, 0)",
            "}",
            "var info = stat()",
            "try file.read(into: buffer)",
            "write(to: &output)",
            "// close(fd) in a comment",
            "if failure.errno == .noSuchFileOrDirectory { return nil }",
            "let k = try System.read(fd, &byte, 1, subject: name)",
        ]
        // Inside NookSystem a call in a wrapper's closure is the wrapper at work.
        let inside = SystemCallScan.scan(file: "NookSystem/Example.swift", lines: lines)
        #expect(inside.map(\.description) == [
            "NookSystem/Example.swift:1: open",
            "NookSystem/Example.swift:2: raw errno",
            "NookSystem/Example.swift:3: read",
        ])
        // Anywhere else it is a raw call too: the module names it through `System`.
        let outside = SystemCallScan.scan(file: "Example/Example.swift", lines: lines)
        #expect(outside.map(\.description) == [
            "Example/Example.swift:1: open",
            "Example/Example.swift:2: raw errno",
            "Example/Example.swift:3: read",
            "Example/Example.swift:4: read",
            "Example/Example.swift:6: recv",
        ])
    }
}

/// A line-based scan of Swift sources for system calls made outside the wrapper.
enum SystemCallScan {
    /// The C functions that are system calls (or report failure through errno as one does).
    /// Not here: calls that cannot fail as used (`getpid`, `clock_gettime`, `usleep`, the
    /// `sigset_t` helpers), lookups that report "not found" without errno (`getgrnam`,
    /// `inet_pton`), and the pthread mutex and condition calls (their errors are programmer errors).
    static let calls: Set<String> = [
        "open", "openat", "close", "read", "write", "pread", "pwrite", "readv", "writev",
        "send", "sendto", "sendmsg", "recv", "recvfrom", "recvmsg", "accept", "accept4", "connect",
        "bind", "listen", "socket", "socketpair", "shutdown", "setsockopt", "getsockopt",
        "getsockname", "getpeername", "poll", "ppoll", "select", "epoll_wait", "epoll_ctl",
        "epoll_create1", "ioctl", "fcntl", "mmap", "munmap", "madvise", "mprotect", "stat", "lstat",
        "fstat", "fstatat", "access", "faccessat", "unlink", "unlinkat", "rename", "renameat",
        "mkdir", "mkdirat", "rmdir", "chmod", "fchmod", "chown", "fchown", "fsync", "fdatasync",
        "ftruncate", "truncate", "lseek", "dup", "dup2", "dup3", "pipe", "pipe2", "kill", "waitpid",
        "waitid", "sigaction", "sigprocmask", "pthread_sigmask", "signalfd", "eventfd",
        "timerfd_create", "inotify_init1", "inotify_add_watch", "opendir", "readdir", "closedir",
        "realpath", "mknod", "mkfifo", "symlink", "readlink", "link", "utimensat", "futimens",
        "getrandom", "nanosleep", "clock_nanosleep", "setrlimit", "getrlimit", "prctl",
        "posix_spawn", "posix_spawnp", "gethostname", "flock",
    ]

    /// errno's constants: outside Errno.swift they are raw numbers.
    static let errnoNames: Set<String> = [
        "EINTR", "EAGAIN", "EWOULDBLOCK", "ENOENT", "EACCES", "EPERM", "EBUSY", "ENODEV", "ENXIO",
        "ENOSPC", "EDQUOT", "EIO", "EEXIST", "ENOTDIR", "EISDIR", "ELOOP", "EBADF", "EPIPE",
        "ECONNREFUSED", "ECONNRESET", "ECONNABORTED", "EPROTO", "EINVAL", "ETIMEDOUT", "ENODATA",
        "EOPNOTSUPP", "ENOTSUP", "ENOSYS", "ECHILD", "EMFILE", "ENFILE", "ENOBUFS", "ENOMEM", "EROFS",
        "ENAMETOOLONG", "EFAULT", "ESRCH", "EINPROGRESS", "EALREADY", "ENOTCONN", "EADDRINUSE",
        "EHOSTUNREACH", "ENETUNREACH", "ENOTSOCK", "ESPIPE", "EFBIG", "ETXTBSY", "EXDEV",
        "ENOTEMPTY", "EMSGSIZE", "ENOTTY",
    ]

    /// The wrapper's entry points: a call on their line, or inside the closure their line opens.
    static let wrappers = ["systemCall(", "nonBlockingSystemCall(", "errnoReturningCall(", "systemCallResult(", "closeDescriptor("]

    /// The wrapper itself and the type that names errno's values.
    static let wrapperFiles: Set<String> = ["NookSystem/SystemCall.swift", "NookSystem/Errno.swift"]

    /// Raw calls that stay, as "file: call", and why.
    static let allowed: [String: String] = [
        "NookSystem/SignalRelay.swift: write":
            "in the signal handler: only async-signal-safe calls, and the wrapper may allocate an error",
        "NookSystem/ChildSpawns.swift: posix_spawn":
            "inside the local function that errnoReturningCall calls, so both variants share one argument list",
        "NookSystem/ChildSpawns.swift: posix_spawnp":
            "inside the local function that errnoReturningCall calls, so both variants share one argument list",
        "NookSystem/DirectoryListing.swift: readdir":
            "returns nil both at the end and on failure; the listing ends either way",
        "NookLED/SPIDevice.swift: ioctl":
            "the default of the injectable control function; every use of it goes through systemCall",
        "NookLCDproc/ServerMenu.swift: send":
            "not Glibc's: the LCDproc server's own send(_:_:), declared in Server.swift",
    ]

    struct Finding: CustomStringConvertible {
        let file: String
        let line: Int
        /// The call's name, or "raw errno".
        let what: String
        var isErrno: Bool { what == "raw errno" }
        var key: String { "\(file): \(what)" }
        var description: String { "\(file):\(line): \(what)" }
    }

    /// Sources/, found from this file's path.
    static var sourcesDirectory: String {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Tests/NookSystemTests/RawSystemCallTests.swift
        return parts.joined(separator: "/") + "/Sources"
    }

    static func scan(root: String) throws -> [Finding] {
        var findings: [Finding] = []
        for module in try directoryEntries(root).sorted() {
            for file in try swiftFiles(in: root + "/" + module, relative: module) where !wrapperFiles.contains(file) {
                let text = String(decoding: try readRegularFile(root + "/" + file, limit: 1 << 20), as: UTF8.self)
                findings += scan(file: file, lines: text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
            }
        }
        return findings
    }

    static func swiftFiles(in directory: String, relative: String) throws -> [String] {
        guard let info = try fileStatus(directory), info.st_mode & 0o170000 == 0o040000 else {
            return relative.hasSuffix(".swift") ? [relative] : []
        }
        return try directoryEntries(directory).sorted().flatMap { try swiftFiles(in: directory + "/" + $0, relative: relative + "/" + $0) }
    }

    static func scan(file: String, lines: [String]) -> [Finding] {
        let code = lines.map(withoutComment)
        // A method of the file's own type with a system call's name hides Glibc's.
        let declared = Set(code.flatMap { line in
            identifiers(in: line).compactMap { token in
                token.index > 0 && ["func", "case"].contains(token.previousWord) ? token.name : nil
            }
        })
        var findings: [Finding] = []
        var previous = ""
        for (index, line) in code.enumerated() {
            // Only NookSystem wraps calls; every other module calls its named wrappers.
            let wrapped = file.hasPrefix("NookSystem/") && (wrappers.contains { line.contains($0) }
                || (wrappers.contains { previous.contains($0) } && (previous.hasSuffix("{") || previous.hasSuffix(" in"))))
            for token in identifiers(in: line) {
                let rawErrno = (errnoNames.contains(token.name) && !token.afterDot)
                    || (token.name == "errno" && !token.afterDot && (token.followedBy("==") || token.followedBy("!=") || token.precededBy("==") || token.precededBy("!=")))
                if rawErrno {
                    if findings.last?.line != index + 1 || findings.last?.isErrno != true { findings.append(Finding(file: file, line: index + 1, what: "raw errno")) }
                } else if calls.contains(token.name), token.isCall, !wrapped, !["func", "case"].contains(token.previousWord),
                          token.afterGlibc || (!token.afterDot && !declared.contains(token.name)) {
                    findings.append(Finding(file: file, line: index + 1, what: token.name))
                }
            }
            if !line.allSatisfy(\.isWhitespace) { previous = line.trimmingTrailingSpaces }
        }
        return findings
    }

    static func withoutComment(_ line: String) -> String {
        guard let range = line.range(of: "//") else { return line }
        return String(line[..<range.lowerBound])
    }

    struct Token {
        let name: String
        let index: Int
        let before: Substring
        let after: Substring
        let previousWord: String
        var afterDot: Bool { before.last == "." }
        var afterGlibc: Bool { before.hasSuffix("Glibc.") }
        /// Called with arguments, the first unlabelled (`stat()` is a struct, `write(to:)` a method).
        var isCall: Bool {
            guard after.first == "(" else { return false }
            let arguments = after.dropFirst().drop { $0 == " " }
            if arguments.first == ")" { return false }
            let label = arguments.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            return label.isEmpty || arguments.dropFirst(label.count).first != ":"
        }
        func followedBy(_ text: String) -> Bool { after.drop { $0 == " " }.hasPrefix(text) }
        func precededBy(_ text: String) -> Bool { String(before.reversed().drop { $0 == " " }.reversed()).hasSuffix(text) }
    }

    static func identifiers(in line: String) -> [Token] {
        var tokens: [Token] = []
        var index = line.startIndex
        var lastWord = ""
        while index < line.endIndex {
            let character = line[index]
            if character.isLetter || character == "_" {
                let start = index
                while index < line.endIndex, line[index].isLetter || line[index].isNumber || line[index] == "_" { index = line.index(after: index) }
                let name = String(line[start..<index])
                tokens.append(Token(name: name, index: tokens.count, before: line[..<start], after: line[index...], previousWord: lastWord))
                lastWord = name
            } else if character == "\"" {
                // Skips a string literal (not its interpolations: rare in calls that matter).
                index = line.index(after: index)
                while index < line.endIndex, line[index] != "\"" {
                    if line[index] == "\\" { index = line.index(after: index) }
                    if index < line.endIndex { index = line.index(after: index) }
                }
                if index < line.endIndex { index = line.index(after: index) }
            } else {
                if !character.isWhitespace { lastWord = "" }
                index = line.index(after: index)
            }
        }
        return tokens
    }
}

private extension String {
    var trimmingTrailingSpaces: String { String(reversed().drop { $0.isWhitespace }.reversed()) }
}
