import Glibc

// Path calls through the wrapper, for the questions call sites ask most: is something there,
// what is it, take it away. "Nothing there" (ENOENT) is an answer, not an error.

/// `stat(2)` (or `lstat(2)` when not `followingLinks`): nil when nothing is at `path`.
public func fileStatus(_ path: String, followingLinks: Bool = true) throws(SystemCallError) -> stat? {
    var info = stat()
    switch systemCallResult({ followingLinks ? stat(path, &info) : lstat(path, &info) }) {
    case .success: return info
    case .failure(.noSuchFileOrDirectory): return nil
    case .failure(let code): throw SystemCallError(followingLinks ? "stat" : "lstat", errno: code, subject: path)
    }
}

/// Whether anything is at `path` (`access(2)` with `F_OK`; a dangling link is not).
public func fileExists(_ path: String) -> Bool {
    (try? systemCall("access", subject: path) { access(path, F_OK) }) != nil
}

/// `unlink(2)`: false when nothing was at `path`.
@discardableResult
public func removeFile(_ path: String) throws(SystemCallError) -> Bool {
    switch systemCallResult({ unlink(path) }) {
    case .success: return true
    case .failure(.noSuchFileOrDirectory): return false
    case .failure(let code): throw SystemCallError("unlink", errno: code, subject: path)
    }
}

/// `rename(2)`, named in its error as `from to to`.
public func renameFile(_ from: String, to: String) throws(SystemCallError) {
    _ = try systemCall("rename", subject: "\(from) to \(to)") { rename(from, to) }
}

/// `mkdir(2)`: false when something was already at `path` (EEXIST).
@discardableResult
public func makeDirectory(_ path: String, mode: mode_t) throws(SystemCallError) -> Bool {
    switch systemCallResult({ mkdir(path, mode) }) {
    case .success: return true
    case .failure(.fileExists): return false
    case .failure(let code): throw SystemCallError("mkdir", errno: code, subject: path)
    }
}
