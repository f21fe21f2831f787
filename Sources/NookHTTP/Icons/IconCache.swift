#if canImport(Glibc)
import Glibc
#endif
import NookSystem

/// The fetched icons' directory (M3): `ID.png` and `ID.gif` files, at most `maximumCount` of
/// them and `maximumBytes` together; beyond either the least recently fetched go first. Only
/// files named so are counted or removed: anything else a person put there stays. Each file is
/// written under a hidden name and renamed into place, so nookd never reads half an icon, and
/// made readable by all (nook-http's unit runs with `UMask=0077`; nookd is another user).
struct IconCache {
    let directory: String
    let maximumCount: Int
    let maximumBytes: Int

    /// The directory, made if missing (its parent must exist), and readable and searchable by
    /// all (nookd is another user): one there already is given those rights, or why not is said.
    func prepare() throws(IconCacheError) {
        let info: stat?
        do throws(SystemCallError) {
            if try makeDirectory(directory, mode: 0o755) { try System.changeMode(directory, 0o755) }
            info = try fileStatus(directory)
        } catch {
            throw IconCacheError("\(error)")
        }
        guard let info else { throw IconCacheError("\(directory): nothing is there") }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw IconCacheError("\(directory) is \(fileKind(info.st_mode & S_IFMT)), not a directory") }
        guard info.st_mode & 0o005 != 0o005 else { return }
        do throws(SystemCallError) { try System.changeMode(directory, (info.st_mode & 0o7777) | 0o055) } catch {
            throw IconCacheError("\(error): nookd, another user, cannot read the icons there")
        }
    }

    /// The file already there for `id`, if any.
    func file(for id: String) -> String? {
        ["png", "gif"].map { "\(directory)/\(id).\($0)" }.first(where: fileExists)
    }

    /// Writes `icon` as `id`'s file, then removes the oldest files beyond the bounds; returns
    /// the path written and the names removed.
    func store(_ icon: FetchedIcon, id: String) throws(SystemCallError) -> (path: String, removed: [String]) {
        let path = "\(directory)/\(id).\(icon.kind.rawValue)"
        // Named by the process too: another nook-http on the same cache writes its own.
        let part = "\(directory)/.\(id).\(getpid()).part"
        do throws(SystemCallError) {
            let file = try FileDescriptor.open(part, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode: 0o644)
            var failure: SystemCallError?
            icon.bytes.withUnsafeBytes { bytes in
                do throws(SystemCallError) { try file.writeAll(bytes) } catch { failure = error }
            }
            if let failure { throw failure }
            try System.changeMode(file.rawValue, 0o644, subject: part)
            try renameFile(part, to: path)
        } catch {
            _ = try? removeFile(part)
            throw error
        }
        // The other kind of the same id is stale now.
        let other = "\(directory)/\(id).\(icon.kind == .png ? "gif" : "png")"
        _ = try? removeFile(other)
        return (path, try evict(keeping: path))
    }

    private func evict(keeping kept: String) throws(SystemCallError) -> [String] {
        struct Entry { var name: String; var bytes: Int; var modified: Int64 }
        var entries: [Entry] = []
        for name in try directoryEntries(directory) where Self.isIconName(name) {
            guard let info = try? fileStatus("\(directory)/\(name)", followingLinks: false), (info.st_mode & S_IFMT) == S_IFREG else { continue }
            entries.append(Entry(name: name, bytes: Int(info.st_size), modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)))
        }
        entries.sort { ($0.modified, $0.name) < ($1.modified, $1.name) }
        var (count, bytes) = (entries.count, entries.reduce(0) { $0 + $1.bytes })
        var removed: [String] = []
        for entry in entries where count > maximumCount || bytes > maximumBytes {
            // One that cannot be removed (gone already, or not nook-http's) is left: the icon just written stays written.
            guard "\(directory)/\(entry.name)" != kept, (try? removeFile("\(directory)/\(entry.name)")) == true else { continue }
            removed.append(entry.name)
            (count, bytes) = (count - 1, bytes - entry.bytes)
        }
        return removed
    }

    /// `1234.png` or `1234.gif`: what this cache writes.
    static func isIconName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && (parts[1] == "png" || parts[1] == "gif") && (1...9).contains(parts[0].utf8.count)
            && parts[0].utf8.allSatisfy { (0x30...0x39).contains($0) }
    }
}

/// Why the cache directory cannot be used.
struct IconCacheError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
