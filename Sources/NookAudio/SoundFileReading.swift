import Glibc
import NookSound
import NookSystem

extension SoundFile {
    /// The file's canonical path, after checking its name and that it is inside the directory
    /// once `realpath(3)` has resolved links (``ConfinedPath``): a link out of the directory is
    /// refused without saying where it leads, as an icon outside the icon directories is (R3).
    public func resolved() throws(SoundError) -> String {
        if let problem = SoundFile.nameProblem(name) { throw SoundError(problem) }
        let directory: String
        do throws(SystemCallError) {
            directory = try System.resolvedPath(self.directory, subject: self.directory)
        } catch {
            throw SoundError("sound.directory cannot be read: \(error)")
        }
        let path: String
        do throws(SystemCallError) {
            path = try System.resolvedPath(directory + "/" + name)
        } catch {
            throw SoundError(error.errno == .noSuchFileOrDirectory
                             ? "no sound file '\(name)' in \(self.directory) (sound.directory)" : "'\(name)' in \(self.directory): \(error)")
        }
        guard ConfinedPath.isInside(path, directory), path != directory else {
            throw SoundError("'\(name)' leads out of \(self.directory) (sound.directory): a sound file is a file there, not a link elsewhere")
        }
        return path
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
                throw SoundError("'\(name)' is \(size) bytes; a sound file may have at most \(WAVFile.maximumBytes) (32 MiB)")
            }
            throw SoundError("'\(name)' \(error.problem(followingSymlinks: false))")
        }
        do throws(SoundError) {
            return try WAVFile.decode(bytes)
        } catch {
            throw SoundError("'\(name)' is not a WAV file Nook plays: \(error.message)")
        }
    }
}
