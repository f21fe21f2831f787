#if canImport(Glibc)
import Glibc
#endif
import NookSystem

/// Replacing a file so that a crash or a power cut at any instant leaves either the old file
/// or the new one whole: the journal's and the history's rewrites.
enum DurableFile {
    /// Writes `bytes` to `PATH.new`, syncs it, renames it over `path` and syncs the directory;
    /// returns the new file, positioned at its end. `label` starts the warning about a
    /// directory that could not be synced (the new file is in place for this run regardless).
    static func replace(_ path: String, with bytes: [UInt8], syncer: ActivityJournal.Syncer, label: String,
                        warn: (String) -> Void) -> Result<FileDescriptor, JournalDamage> {
        let temporary = path + ".new"
        let file: FileDescriptor
        do throws(SystemCallError) {
            // Whatever a previous run (or anyone) left there goes first, and the file is then
            // created anew: a FIFO would block the open, a link would truncate its target.
            if unlink(temporary) != 0 && errno != ENOENT { throw SystemCallError("unlink", subject: temporary) }
            file = try FileDescriptor.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600)
        } catch {
            return .failure(JournalDamage(error.description))
        }
        func fail(_ problem: String) -> Result<FileDescriptor, JournalDamage> {
            unlink(temporary)
            return .failure(JournalDamage(problem))
        }
        if let problem = ActivityJournal.writeAll(file, bytes, path: temporary) { return fail(problem) }
        let synced = syncer(file.rawValue, true)
        guard synced == 0 else { return fail(SystemCallError("fsync", errno: synced, subject: temporary).description) }
        guard rename(temporary, path) == 0 else { return fail(SystemCallError("rename", subject: "\(temporary) to \(path)").description) }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        if let directoryFile = try? FileDescriptor.open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY) {
            let result = syncer(directoryFile.rawValue, true)
            // The rename may not survive a power cut; the new file is in place for this run.
            if result != 0 { warn("\(label): \(SystemCallError("fsync", errno: result, subject: "directory \(directory)"))") }
        }
        return .success(file)
    }

    enum Contents { case missing, failed(String), contents([UInt8]) }

    /// The whole file at `path` as recovery reads it: missing, why it could not be read (the
    /// caller names the path), or its bytes. Never blocks on what the path turns out to be: a
    /// FIFO there must not hang nookd's start.
    static func contents(of path: String, limit: Int) -> Contents {
        do throws(FileReadError) {
            return .contents(try readRegularFile(path, limit: limit))
        } catch {
            switch error {
            case .systemCall(let failure) where failure.call == "open" && failure.errno == ENOENT: return .missing
            case .systemCall(let failure): return .failed(SystemCallError(failure.call, errno: failure.errno).description)
            case .notRegular: return .failed("not a regular file")
            case .tooLarge: return .failed("larger than \(limit / 1024 / 1024) MiB")
            }
        }
    }
}
