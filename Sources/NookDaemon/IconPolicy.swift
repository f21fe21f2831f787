#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookProtocol
import NookRender
import NookSystem

/// Which image files an activity's icon may name (R3, C4), checked when it is enqueued.
///
/// nookd reads an icon file with its own privileges on behalf of any member of the socket's
/// group, and `snapshot` hands the glass back to them: so only files under the configured
/// directories (`daemon.icon_directories`) are read, after resolving `..` and symbolic links.
/// A name without a slash (`doorbell.png`) is looked up in each directory in turn. The file
/// itself must be a readable regular file holding a small PNG or GIF (``IconFile``); it is read here,
/// in the connection's task, never on the screen's executor, and a refusal names `activity.icon`.
struct IconPolicy: Sendable {
    /// The package's, the owner's, and nook-http's fetched icons (`icons.directory`'s default).
    static let defaultDirectories = ["/usr/share/nook/icons", "/etc/nook/icons", "/var/cache/nook-http/icons"]

    var directories: [String]
    /// Where a LaMetric id found in no directory is asked for (M3); nil asks nobody (a restore,
    /// a recall: what they draw was sent long ago).
    var wants: IconWants? = nil

    /// `activity` with its icon file (if it names one rather than a built-in icon) resolved and
    /// checked as at enqueue (R3). A name that is neither a built-in icon nor a file name is an
    /// icon id or name as LaMetric's and AWTRIX's senders send them (M3): the first of
    /// ``fileNames(for:)`` found in the icon directories is its file. Found nowhere, it is the
    /// activity's `iconFallback` if it has one (``fallbackNote(asked:drawn:shownOn:)`` says so),
    /// else the name stays as it came (the answer says it is unknown). The result has no fallback.
    func checked(_ activity: NookActivity) throws(ProtocolError) -> NookActivity {
        var checked = activity
        checked.iconFallback = nil
        guard let icon = activity.systemImage, !NookIconNames.isKnown(icon) else { return checked }
        if IconCatalog.namesFile(icon) {
            checked.systemImage = try resolve(icon)
        } else if let file = Self.fileNames(for: icon).first(where: { file in directories.contains { Self.canonical($0 + "/" + file) != nil } }) {
            do throws(ProtocolError) {
                checked.systemImage = try resolve(file)
            } catch {
                // The file's name and path are the sender's name on one line, as its quote is.
                throw ProtocolError(error.code, field: error.field,
                                    "icon '\(SaidText.shown(icon, scalars: 100))' names the icon file \(SaidText.shown(file, scalars: 110)): "
                                        + SaidText.shown(error.message, scalars: 2000))
            }
        } else if let fallback = activity.iconFallback {
            checked.systemImage = fallback.isEmpty ? nil : fallback
        }
        return checked
    }

    /// What the sender of `asked`, a card or app that was taken, is told of its icon as drawn
    /// (`drawn`, from ``checked(_:)``): the fallback drawn instead, or that the name is unknown.
    /// A LaMetric id among those is asked of the icon fetcher here (M3), once the request was
    /// taken (a card refused asks for nothing), and the answer says whether it was. Nil when
    /// the icon shows as sent.
    func said(asked: NookActivity, drawn: NookActivity, shownOn: String = "card") -> String? {
        guard let note = fallbackNote(asked: asked, drawn: drawn, shownOn: shownOn)
                ?? drawn.systemImage.flatMap({ NookIconNames.warning(for: $0, shownOn: shownOn) }) else { return nil }
        guard let icon = asked.systemImage, let wants else { return note }
        wants.want(icon)
        return wants.remark(for: icon).map { note + "; " + $0 } ?? note
    }

    /// What the sender of `asked` is told when ``checked(_:)`` drew its fallback (`drawn`):
    /// the name, where nookd looked for it, and what shows instead (R3, M3). Nil otherwise.
    func fallbackNote(asked: NookActivity, drawn: NookActivity, shownOn: String = "card") -> String? {
        guard let fallback = asked.iconFallback, let icon = asked.systemImage, icon != fallback,
              drawn.systemImage == (fallback.isEmpty ? nil : fallback) else { return nil }
        let files = Self.fileNames(for: icon)
        let looked = files.isEmpty ? "it cannot be a file's name" : directories.isEmpty
            ? "no icon directory is configured (daemon.icon_directories)"
            : "no \(files.joined(separator: ", ")) in \(directories.joined(separator: ", ")) (daemon.icon_directories)"
        let suggestion = NookIconNames.nearest(to: icon).map { " (did you mean '\($0)'?)" } ?? ""
        return "icon '\(SaidText.shown(icon, scalars: 100))' is not a built-in icon\(suggestion) and \(looked): the \(shownOn) shows \(fallback.isEmpty ? "no icon" : "'\(fallback)'")"
    }

    /// The files an icon id or name is looked up as, in order: `NAME.png` then `NAME.gif`
    /// (AWTRIX tries its still format first too); a LaMetric id (`1234`, `i1234` still,
    /// `a1234` animated) also without its letter, the GIF first for `a`. Empty for what
    /// cannot be one file's name in a directory (a slash, a NUL, a leading dot, too long).
    static func fileNames(for name: String) -> [String] {
        guard NookIconNames.mayNameIconFile(name) else { return [] }
        var names = [name + ".png", name + ".gif"]
        if let letter = name.first, letter == "i" || letter == "a", name.count > 1, name.utf8.dropFirst().allSatisfy({ (0x30...0x39).contains($0) }) {
            let id = String(name.dropFirst())
            names += letter == "a" ? [id + ".gif", id + ".png"] : [id + ".png", id + ".gif"]
        }
        return names
    }

    /// The canonical path of the icon file `name` names, after checking it can be drawn.
    func resolve(_ name: String) throws(ProtocolError) -> String {
        func refuse(_ message: String) -> ProtocolError { ProtocolError(.invalid, field: "activity.icon", message) }
        let allowed = directories.compactMap(Self.canonical)
        let listed = directories.isEmpty ? "none are configured" : directories.joined(separator: ", ")
        func inAllowed(_ path: String) -> Bool { allowed.contains { ConfinedPath.isInside(path, $0) } }
        // Outside the icon directories one answer for every path, there or not, readable or
        // not: a client (a publish token of nook-http's too) learns nothing of the board's
        // other files. Why a path inside them fails is said, as those are icons.
        let outside = refuse("\(name) is not an icon file in an icon directory nookd may read (daemon.icon_directories: \(listed))")
        let resolved: String
        if name.hasPrefix("/") {
            do throws(SystemCallError) {
                resolved = try Self.canonicalPath(name)
            } catch {
                // Missing: said only when the directory it would be in is an icon directory's.
                var parent = name
                while parent.count > 1, parent.hasSuffix("/") { parent.removeLast() }
                parent = String(parent[..<(parent.lastIndex(of: "/") ?? parent.startIndex)])
                guard let directory = Self.canonical(parent.isEmpty ? "/" : parent), inAllowed(directory) else { throw outside }
                throw refuse("\(name): \(error.errno == .noSuchFileOrDirectory ? "no such file" : error.description)")
            }
        } else {
            guard !name.contains("/"), let path = allowed.lazy.compactMap({ Self.canonical($0 + "/" + name) }).first else {
                throw refuse("no icon file named \(name) in the icon directories (daemon.icon_directories: \(listed))")
            }
            resolved = path
        }
        guard inAllowed(resolved) else { throw outside }
        do {
            _ = try IconFile.load(path: resolved, followingSymlinks: false)
        } catch {
            throw refuse("\(name == resolved ? "" : name + " → ")\(error)")
        }
        return resolved
    }

    /// `realpath(3)`: the absolute path with `.`, `..` and symbolic links resolved (it reads
    /// links and directories, never opens the file itself), or nil.
    static func canonical(_ path: String) -> String? { ConfinedPath.canonical(path) }

    /// As ``canonical(_:)``, or why not (the error names `realpath`, not the path).
    static func canonicalPath(_ path: String) throws(SystemCallError) -> String {
        try System.resolvedPath(path)
    }
}
