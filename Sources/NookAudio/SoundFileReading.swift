import Glibc
import NookSound
import NookSystem

extension SoundFile {
    /// The file's canonical path, after checking its name and that it is inside the directory
    /// once `realpath(3)` has resolved links (``ConfinedPath``): a link out of the directory is
    /// refused without saying where it leads, as an icon outside the icon directories is (R3).
    /// A path (a notification's `sound-file`, B4) names the file as well as its name does when the
    /// folder it names is the directory, found through links as the directory itself is.
    public func resolved() throws(SoundError) -> String {
        let (folder, file) = try Self.parts(of: name, in: self.directory)
        if let problem = SoundFile.nameProblem(file) { throw SoundError(problem) }
        let directory: String
        do throws(SystemCallError) {
            directory = try System.resolvedPath(self.directory, subject: self.directory)
        } catch {
            throw SoundError("sound.directory cannot be read: \(error)")
        }
        if let folder, ConfinedPath.canonical(folder) != directory {
            throw SoundError("'\(SoundText.shown(file))' is in \(SoundText.shownFolder(folder)), not in \(self.directory) (sound.directory): "
                             + "a sound file plays only from there")
        }
        let path: String
        do throws(SystemCallError) {
            path = try System.resolvedPath(directory + "/" + file)
        } catch {
            throw SoundError(error.errno == .noSuchFileOrDirectory
                             ? "no sound file '\(file)' in \(self.directory) (sound.directory)" : "'\(file)' in \(self.directory): \(error)")
        }
        guard ConfinedPath.isInside(path, directory), path != directory else {
            throw SoundError("'\(file)' leads out of \(self.directory) (sound.directory): a sound file is a file there, not a link elsewhere")
        }
        return path
    }

    /// An absolute path's folder and file name; a name's nil and itself. A control character
    /// anywhere in a path is refused before realpath(3) sees it (a NUL would end it early).
    private static func parts(of name: String, in directory: String) throws(SoundError) -> (folder: String?, file: String) {
        guard name.hasPrefix("/") else { return (nil, name) }
        if let problem = SoundFile.controlCharacterProblem(name) { throw SoundError(problem) }
        let slash = name.lastIndex(of: "/")!
        let folder = String(name[..<slash])
        return (folder.isEmpty ? "/" : folder, String(name[name.index(after: slash)...]))
    }

    /// Reads and decodes the file (``WAVFile``) as it is now: found as ``resolved()`` finds it,
    /// opened with `O_NOFOLLOW | O_NONBLOCK` so a link swapped in since, a FIFO or a device is
    /// refused rather than read, and at most ``WAVFile/maximumBytes`` read (a huge sparse file is
    /// refused by its size before a byte is read).
    public func load() throws(SoundError) -> PCMClip {
        let path = try resolved()
        let bytes: [UInt8]
        do throws(FileReadError) {
            bytes = try readRegularFile(path, limit: WAVFile.maximumBytes, openFlags: O_NOFOLLOW)
        } catch {
            if case .tooLarge(_, let size, _) = error {
                throw SoundError("'\(SoundText.shown(name))' is \(size) bytes; a sound file may have at most \(WAVFile.maximumBytes) (32 MiB)")
            }
            throw SoundError("'\(SoundText.shown(name))' \(error.problem(followingSymlinks: false))")
        }
        do throws(SoundError) {
            return try WAVFile.decode(bytes)
        } catch {
            throw SoundError("'\(SoundText.shown(name))' is not a WAV file Nook plays: \(error.message)")
        }
    }
}
