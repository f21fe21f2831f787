#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NookSystem

extension ConfigDocument {
    /// Files larger than this are refused rather than read: a config is a few kilobytes.
    public static let largestFile = 1 << 20

    /// Reads and parses the file at `path`; errors name the path and the failing call's errno.
    public static func load(path: String) throws(ConfigError) -> ConfigDocument {
        let bytes: [UInt8]
        do throws(FileReadError) {
            bytes = try readRegularFile(path, limit: largestFile)
        } catch {
            throw ConfigError(source: path, line: nil, key: nil, message: Self.explain(error))
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigError(source: path, line: nil, key: nil, message: "is not valid UTF-8 text")
        }
        return try ConfigDocument(parsing: text, source: path)
    }

    /// The error without the path, which ConfigError already names first.
    private static func explain(_ error: FileReadError) -> String {
        switch error {
        case .systemCall(let failure): SystemCallError(failure.call, errno: failure.errno).description
        case .notRegular(_, let kind): "is \(kind), not a regular file"
        case .tooLarge(_, _, let limit): "is larger than \(limit) bytes; is this the right file?"
        }
    }
}
