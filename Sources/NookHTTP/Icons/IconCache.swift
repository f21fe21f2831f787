#if canImport(Glibc)
import Glibc
#endif
import NookGIF
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

    /// The directory, made if missing (its parent must exist) and readable by nookd.
    func prepare() throws(SystemCallError) {
        if try makeDirectory(directory, mode: 0o755) {
            try System.changeMode(directory, 0o755)
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
        let part = "\(directory)/.\(id).part"
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
            guard "\(directory)/\(entry.name)" != kept else { continue }
            _ = try removeFile("\(directory)/\(entry.name)")
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

/// A fetched body that is an icon nookd will draw: a PNG or a GIF, told by its bytes (a
/// server's Content-Type is often wrong), within nookd's sides and a GIF decoding whole.
struct FetchedIcon {
    enum Kind: String { case png, gif }

    let kind: Kind
    let bytes: [UInt8]
    let width: Int
    let height: Int
    let frames: Int

    /// nookd draws icons of at most this many pixels a side (IconFile's bound).
    static let largestSide = 1024

    init(checking bytes: [UInt8], limit: Int) throws(HTTPSGet.Failure) {
        let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        self.bytes = bytes
        if bytes.count >= 24, bytes.starts(with: pngSignature), bytes[12..<16].elementsEqual("IHDR".utf8) {
            func bigEndian(_ offset: Int) -> Int { bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) } }
            (kind, width, height, frames) = (.png, bigEndian(16), bigEndian(20), 1)
        } else if GIFDecoder.isGIF(bytes) {
            do throws(GIFError) {
                let gif = try GIFDecoder.decode(bytes, limits: GIFLimits(bytes: limit, side: Self.largestSide, frames: 256, decodedPixels: 1 << 22))
                (kind, width, height, frames) = (.gif, gif.width, gif.height, gif.frames.count)
            } catch {
                throw .init("is a GIF that cannot be drawn: \(error)")
            }
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            throw .init("is a JPEG, which nookd does not draw: put it in an icon directory as a PNG")
        } else {
            let start = String(decoding: bytes.prefix(24), as: UTF8.self).map { $0.isASCII && !$0.isNewline ? $0 : "." }
            throw .init("is neither a PNG nor a GIF (it begins '\(String(start))')")
        }
        guard (1...Self.largestSide).contains(width), (1...Self.largestSide).contains(height) else {
            throw .init("is \(width)x\(height) pixels; nookd draws icons of at most \(Self.largestSide)x\(Self.largestSide)")
        }
    }
}
