import NookConfig
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// A broker user name and password (E6), from a file only the bridge's user may read.
public struct Credentials: Sendable, Equatable {
    public var username: String
    public var password: String?

    public init(username: String, password: String?) { (self.username, self.password) = (username, password) }

    /// Reads `username = "…"` and `password = "…"` from `path`. Refuses a file that is not a
    /// regular file, is owned by another user, or that its group or others may read or write:
    /// a password others can read is a password given away, and saying so beats using it.
    public static func load(path: String, ownerUID: uid_t = geteuid()) throws(ConfigError) -> Credentials {
        func refuse(_ message: String) -> ConfigError { ConfigError(source: path, line: nil, key: nil, message: message) }
        let file: FileDescriptor
        let info: stat
        do throws(SystemCallError) {
            file = try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY)
            info = try file.status()
        } catch {
            throw refuse(error.description)
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw refuse("is \(fileKind(info.st_mode & S_IFMT)), not a regular file") }
        guard info.st_uid == ownerUID else {
            throw refuse("is owned by uid \(info.st_uid), not by the bridge's user (uid \(ownerUID)); chown it to that user")
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw refuse("may be read or written by its group or others (mode \(String(mode, radix: 8))); it holds a password: chmod 600 it")
        }
        _ = file
        let document = try ConfigDocument.load(path: path)
        let reader = ConfigReader(document)
        guard let username = try reader.string("username"), !username.isEmpty else {
            throw reader.error("username", "is required and must not be empty")
        }
        let password = try reader.string("password")
        try reader.rejectUnknownKeys(known: [])
        return Credentials(username: username, password: password)
    }

    /// Where systemd's `LoadCredential=mqtt:…` puts the file, if it did.
    public static var systemdCredential: String? {
        guard let directory = getenv("CREDENTIALS_DIRECTORY").map({ String(cString: $0) }), !directory.isEmpty else { return nil }
        let path = directory + "/mqtt"
        return fileExists(path) ? path : nil
    }
}
