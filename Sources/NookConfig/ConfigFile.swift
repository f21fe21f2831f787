#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ConfigDocument {
    /// Files larger than this are refused rather than read: a config is a few kilobytes.
    public static let largestFile = 1 << 20

    /// Reads and parses the file at `path`; errors name the path and the failing call's errno.
    public static func load(path: String) throws(ConfigError) -> ConfigDocument {
        guard let file = fopen(path, "r") else {
            let code = errno
            throw ConfigError(source: path, line: nil, key: nil, message: "'fopen' failed: (\(code)) \(String(cString: strerror(code)))")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > largestFile {
                throw ConfigError(source: path, line: nil, key: nil, message: "is larger than \(largestFile) bytes; is this the right file?")
            }
            if count < chunk.count { break }
        }
        if ferror(file) != 0 {
            let code = errno
            throw ConfigError(source: path, line: nil, key: nil, message: "'fread' failed: (\(code)) \(String(cString: strerror(code)))")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigError(source: path, line: nil, key: nil, message: "is not valid UTF-8 text")
        }
        return try ConfigDocument(parsing: text, source: path)
    }
}
