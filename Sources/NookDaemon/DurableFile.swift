#if canImport(Glibc)
import Glibc
#endif
import NookSystem

/// Replacing a file so that a crash or a power cut at any instant leaves either the old file
/// or the new one whole: the journal's and the history's rewrites.
enum DurableFile {
    /// How long a log that could not be written stays in memory before a rewrite is tried.
    static let retryAfterSeconds = 10.0

    /// Writes `bytes` to `PATH.new`, syncs it, renames it over `path` and syncs the directory;
    /// returns the new file, positioned at its end. `label` starts the warning about a
    /// directory that could not be synced (the new file is in place for this run regardless).
    static func replace(_ path: String, with bytes: [UInt8], syncer: Syncer, label: String,
                        warn: (String) -> Void) -> Result<FileDescriptor, JournalDamage> {
        let temporary = path + ".new"
        let file: FileDescriptor
        do throws(SystemCallError) {
            // Whatever a previous run (or anyone) left there goes first, and the file is then
            // created anew: a FIFO would block the open, a link would truncate its target.
            // Only a regular file there is nookd's own leftover: anything else (a device node, a
            // FIFO, a link someone planted) is refused, never removed.
            if let info = try fileStatus(temporary, followingLinks: false) {
                guard info.st_mode & S_IFMT == S_IFREG else {
                    return .failure(JournalDamage("\(temporary) is \(fileKind(info.st_mode & S_IFMT)), not nookd's: remove it"))
                }
                try removeFile(temporary)
            }
            file = try FileDescriptor.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600)
        } catch {
            return .failure(JournalDamage(error.description))
        }
        func fail(_ problem: String) -> Result<FileDescriptor, JournalDamage> {
            _ = try? removeFile(temporary)
            return .failure(JournalDamage(problem))
        }
        if let problem = writeAll(file, bytes, path: temporary) { return fail(problem) }
        let synced = syncer(file.rawValue, true)
        guard synced == 0 else { return fail(SystemCallError("fsync", errno: Errno(rawValue: synced), subject: temporary).description) }
        // Something swapped in at the path since the start's check (a FIFO, a link, a directory)
        // is not nookd's to replace, as at start: the rewrite fails, naming it, and is retried.
        do throws(SystemCallError) {
            if let info = try fileStatus(path, followingLinks: false), info.st_mode & S_IFMT != S_IFREG {
                return fail("\(path) is \(fileKind(info.st_mode & S_IFMT)), not nookd's: nookd does not replace it")
            }
        } catch {
            return fail(error.description)
        }
        do { try renameFile(temporary, to: path) } catch { return fail(error.description) }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        if let directoryFile = try? FileDescriptor.open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY) {
            let result = syncer(directoryFile.rawValue, true)
            // The rename may not survive a power cut; the new file is in place for this run.
            if result != 0 { warn("\(label): \(SystemCallError("fsync", errno: Errno(rawValue: result), subject: "directory \(directory)"))") }
        }
        return .success(file)
    }

    enum Contents { case missing, failed(String), contents([UInt8]) }

    /// Why nookd must not start with `path` as its journal or history (`label`), or nil. Only a
    /// missing path, or a regular file whose first line is a record (or the zeros a power cut
    /// leaves), is nookd's to read, set aside and replace; a device, a FIFO, a socket, a
    /// directory, a symbolic link, a file too large to be nookd's, or a file of something else
    /// is refused, untouched. Reads at most the first 4 KiB.
    static func refusal(of path: String, label: String, limit: Int) -> String? {
        let info: stat
        do throws(SystemCallError) {
            guard let found = try fileStatus(path, followingLinks: false) else { return nil }
            info = found
        } catch {
            return "\(label) \(path): \(error)"
        }
        let kind = info.st_mode & S_IFMT
        if kind == S_IFLNK {
            return "\(label) \(path) is a symbolic link: nookd replaces its \(label) by renaming a new file over it, "
                + "which would replace the link, not its target; give the real path"
        }
        guard kind == S_IFREG else {
            return "\(label) \(path) is \(fileKind(kind)), not a regular file; nookd never writes, renames or replaces it: "
                + "give the path of a file nookd owns, or of one that does not exist yet"
        }
        guard Int(info.st_size) <= limit else {
            return "\(label) \(path) is \(info.st_size) bytes, more than a nookd \(label) ever holds (\(limit / 1024 / 1024) MiB): "
                + "it is not nookd's, and nookd does not replace it; give another path, or remove the file"
        }
        var head = [UInt8](repeating: 0, count: 4096)
        do throws(SystemCallError) {
            let file = try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW)
            let opened = try file.status()
            // Swapped for something else since the lstat.
            guard opened.st_mode & S_IFMT == S_IFREG else { return "\(label) \(path) is \(fileKind(opened.st_mode & S_IFMT)), not a regular file" }
            let count = try head.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemCallError) in try System.pread(file.rawValue, buffer.baseAddress!, buffer.count, offset: 0, subject: path) }
            }.get()
            head.removeSubrange(count...)
        } catch {
            return "\(label) \(path): \(error); nookd does not replace a file it cannot read"
        }
        // The first line that is not empty: a record, a record cut short, or zeros.
        let start = head.firstIndex { $0 != UInt8(ascii: "\n") } ?? head.count
        let line = head[start...].prefix { $0 != UInt8(ascii: "\n") }
        guard line.isEmpty || line.allSatisfy({ $0 == 0 }) || looksLikeRecord(line) else {
            return "\(label) \(path) does not start with a \(label) record (a line `CRC32 JSON`): it is not a nookd \(label), "
                + "and nookd does not replace it; give another path, or remove the file"
        }
        return nil
    }

    /// Why the journal and the history cannot live at these paths, or nil: one file (or one's
    /// `.new`) for both would be rewritten by each writer over the other's records, and their
    /// rewrites would race for the one `PATH.new`. Compared as written with `.` and `..` taken
    /// out, and by device and inode where both exist (a hard link, a linked directory).
    static func sharing(journal: String, history: String) -> String? {
        func normal(_ path: String) -> String {
            var parts: [Substring] = []
            for part in path.split(separator: "/", omittingEmptySubsequences: true) {
                if part == "." { continue }
                if part == "..", !parts.isEmpty, parts.last != ".." { parts.removeLast(); continue }
                parts.append(part)
            }
            return (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
        }
        let (j, h) = (normal(journal), normal(history))
        var clash = j == h || j == h + ".new" || h == j + ".new"
        if !clash, let jInfo = try? fileStatus(journal), let hInfo = try? fileStatus(history) {
            clash = jInfo.st_dev == hInfo.st_dev && jInfo.st_ino == hInfo.st_ino
        }
        // Files that do not exist yet, in one directory spelled two ways (a linked directory,
        // a relative path and an absolute one): the same name, or one the other's `.new`.
        func split(_ path: String) -> (directory: String, name: String) {
            guard let slash = path.lastIndex(of: "/") else { return (".", path) }
            let directory = String(path[..<slash])
            return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
        }
        let (jPlace, hPlace) = (split(j), split(h))
        if !clash, jPlace.name == hPlace.name || jPlace.name == hPlace.name + ".new" || hPlace.name == jPlace.name + ".new",
           let jDirectory = try? fileStatus(jPlace.directory), let hDirectory = try? fileStatus(hPlace.directory) {
            clash = jDirectory.st_dev == hDirectory.st_dev && jDirectory.st_ino == hDirectory.st_ino
        }
        guard clash else { return nil }
        return "journal \(journal) and history \(history) are one file: each would replace the other's records; "
            + "give [history] path a file of its own"
    }

    /// Whether `line` starts as a record does: eight hexadecimal digits, a space and `{` (as far
    /// as it goes: a record torn after a few bytes is still one).
    static func looksLikeRecord(_ line: some Collection<UInt8>) -> Bool {
        for (index, byte) in line.prefix(10).enumerated() {
            switch index {
            case 0..<8:
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte) else { return false }
            case 8: guard byte == UInt8(ascii: " ") else { return false }
            default: guard byte == UInt8(ascii: "{") else { return false }
            }
        }
        return true
    }

    /// Whether `file` is the file at `path` still: one removed, renamed over, or whose directory
    /// was moved away since it was opened takes writes that no restart reads.
    static func isStill(_ file: FileDescriptor, at path: String) -> Bool {
        guard let opened = try? file.status(), let found = try? fileStatus(path, followingLinks: false) else { return false }
        return opened.st_dev == found.st_dev && opened.st_ino == found.st_ino
    }

    /// Appends `bytes` to the log `file` (named `path` in the failure). A write cut short (a
    /// full disk) is undone by truncating the file back to its length before it, so the file
    /// never ends in a torn record that the next start would take for a power cut.
    static func append(_ file: FileDescriptor, _ bytes: [UInt8], path: String) -> String? {
        let before = try? file.status()
        guard let problem = writeAll(file, bytes, path: path) else { return nil }
        guard let before else { return problem }
        do throws(SystemCallError) {
            try System.truncate(file.rawValue, to: before.st_size, subject: path)
        } catch {
            return problem + "; \(error): the file ends in a torn record"
        }
        // For a descriptor without O_APPEND the next write must start at the old end too.
        _ = try? System.seek(file.rawValue, to: before.st_size, subject: path)
        return problem
    }

    /// The whole file at `path` as recovery reads it: missing, why it could not be read (the
    /// caller names the path), or its bytes. Never blocks on what the path turns out to be: a
    /// FIFO there must not hang nookd's start.
    static func contents(of path: String, limit: Int, noFollow: Bool = false) -> Contents {
        do throws(FileReadError) {
            return .contents(try readRegularFile(path, limit: limit, openFlags: noFollow ? O_NOFOLLOW : 0))
        } catch {
            switch error {
            case .systemCall(let failure) where failure.call == "open" && failure.errno == .noSuchFileOrDirectory: return .missing
            case .systemCall(let failure): return .failed(SystemCallError(failure.call, errno: failure.errno).description)
            case .notRegular: return .failed("not a regular file")
            case .tooLarge: return .failed("larger than \(limit / 1024 / 1024) MiB")
            }
        }
    }

    /// What the writer thread does with a file descriptor to put it on stable storage:
    /// `fdatasync` (`full` false: the log) or `fsync` (`full` true: a new file, a directory).
    /// Returns 0 or the errno. Injected by tests to count and hold syncs.
    typealias Syncer = @Sendable (_ fd: Int32, _ full: Bool) -> Int32

    @Sendable static func systemSync(_ fd: Int32, _ full: Bool) -> Int32 {
        System.flush(fd, metadata: full)?.rawValue ?? 0
    }

    /// nil, or why not every byte was written, naming `path` (the log keeps the descriptor of
    /// the file it was renamed from).
    static func writeAll(_ file: FileDescriptor, _ bytes: [UInt8], path: String) -> String? {
        var failure: SystemCallError?
        bytes.withUnsafeBytes { buffer in
            do throws(SystemCallError) { try file.writeAll(buffer) } catch { failure = error }
        }
        return failure.map { SystemCallError($0.call, errno: $0.errno, subject: path).description }
    }
}
