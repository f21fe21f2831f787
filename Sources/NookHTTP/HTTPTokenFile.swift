import NookConfig
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// One token a sender may present: its name (the activity's sender, U3), its scopes, and the
/// SHA-256 of the token itself, which is all the file keeps (H4).
public struct HTTPToken: Sendable, Equatable {
    public var name: String
    public var scopes: Set<HTTPScope>
    public var digest: [UInt8]

    public init(name: String, scopes: Set<HTTPScope>, digest: [UInt8]) { (self.name, self.scopes, self.digest) = (name, scopes, digest) }
}

/// Why the token file cannot be used, naming the file (and the line).
public struct HTTPTokenFileError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The token file (`http.tokens`): one token a line, `NAME SCOPE[,SCOPE] sha256:HEX`; `#`
/// starts a comment. `nook-http hash-token NAME SCOPES` makes a token and its line.
public enum HTTPTokenFile {
    /// A token file is a few lines; anything this big is not one.
    public static let maximumBytes = 1 << 20

    /// - Parameter ownerUID: the user nook-http runs as; the file must be its own or root's.
    public static func load(path: String, ownerUID: uid_t = geteuid()) throws(HTTPTokenFileError) -> [HTTPToken] {
        let info: stat?
        do throws(SystemCallError) { info = try fileStatus(path) } catch { throw HTTPTokenFileError("the token file \(path): \(error)") }
        guard let info else { throw HTTPTokenFileError("the token file \(path) does not exist (http.tokens)") }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG else { throw HTTPTokenFileError("the token file \(path) is \(fileKind(kind)), not a regular file") }
        // Its owner may add a token with every scope, so it must be one who may already do all.
        guard info.st_uid == ownerUID || info.st_uid == 0 else {
            throw HTTPTokenFileError("the token file \(path) is owned by \(userText(info.st_uid)), not by the user nook-http runs as (\(userText(ownerUID))) or root, so that user can add a token of their own; chown \(userName(of: ownerUID) ?? String(ownerUID)) \(path)")
        }
        let mode = info.st_mode & 0o7777
        guard mode & 0o077 == 0 else {
            throw HTTPTokenFileError("the token file \(path) has mode \(String(mode, radix: 8)), so \(othersMay(mode)); make it the service's alone (chmod 600 \(path))")
        }
        let bytes: [UInt8]
        do throws(FileReadError) { bytes = try readRegularFile(path, limit: maximumBytes) } catch {
            throw HTTPTokenFileError("the token file: \(error)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw HTTPTokenFileError("the token file \(path) is not UTF-8 text") }
        return try parse(text, path: path)
    }

    /// What a mode lets others than the owner do: "its group can read it", "others can write
    /// it, so they could add a token of their own"…
    static func othersMay(_ mode: mode_t) -> String {
        func verbs(_ bits: mode_t) -> String {
            [(mode_t(4), "read"), (mode_t(2), "write"), (mode_t(1), "execute")].filter { bits & $0.0 != 0 }.map(\.1).joined(separator: " and ")
        }
        let group = verbs(mode >> 3 & 7), others = verbs(mode & 7)
        var said: String
        if group == others {
            said = "its group and others can \(group) it"
        } else {
            said = [group.isEmpty ? nil : "its group can \(group) it", others.isEmpty ? nil : "others can \(others) it"]
                .compactMap { $0 }.joined(separator: " and ")
        }
        var could: [String] = []
        if mode & 0o022 != 0 { could.append("add a token of their own") }
        if mode & 0o044 != 0 { could.append("learn every token's name and scopes") }
        return could.isEmpty ? said : said + ", so they could " + could.joined(separator: " and ")
    }

    static func userText(_ uid: uid_t) -> String {
        userName(of: uid).map { "\($0) (uid \(uid))" } ?? "uid \(uid)"
    }

    public static func parse(_ text: String, path: String) throws(HTTPTokenFileError) -> [HTTPToken] {
        var tokens: [HTTPToken] = []
        // Each name and hash with the line it came from: a file of many lines is checked in one
        // pass (SIGHUP reads it on the server's thread).
        var names: Set<String> = []
        var hashes: [[UInt8]: (line: Int, name: String)] = [:]
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.prefix { $0 != "#" }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if words.isEmpty { continue }
            let place = "\(path) line \(index + 1)"
            guard words.count == 3 else { throw HTTPTokenFileError("\(place): expected 'NAME SCOPE[,SCOPE] sha256:HEX', got \(words.count) word(s)") }
            let name = String(words[0])
            guard isValidName(name) else {
                throw HTTPTokenFileError("\(place): the name '\(name)' must be 1 to 64 letters, digits, '.', '_' or '-'")
            }
            guard names.insert(name).inserted else { throw HTTPTokenFileError("\(place): the name '\(name)' is given twice") }
            var scopes: Set<HTTPScope> = []
            for word in words[1].split(separator: ",") {
                guard let scope = HTTPScope(rawValue: String(word)) else {
                    throw HTTPTokenFileError("\(place): unknown scope '\(word)' (read, publish or admin)")
                }
                scopes.insert(scope)
            }
            guard !scopes.isEmpty else { throw HTTPTokenFileError("\(place): no scope") }
            guard words[2].hasPrefix("sha256:"), let digest = hexBytes(words[2].dropFirst(7)), digest.count == 32 else {
                throw HTTPTokenFileError("\(place): the hash must be 'sha256:' and 64 hexadecimal digits (make a line with nook-http hash-token)")
            }
            // Two names for one token: the first would win and the second be a name no request
            // is ever given.
            if let same = hashes[digest] {
                throw HTTPTokenFileError("\(place): the hash is the same as line \(same.line)'s ('\(same.name)'): one token has one line")
            }
            hashes[digest] = (index + 1, name)
            tokens.append(HTTPToken(name: name, scopes: scopes, digest: digest))
        }
        return tokens
    }

    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"): true
            default: false
            }
        }
    }

    /// The file's line for a token.
    public static func line(name: String, scopes: Set<HTTPScope>, token: String) -> String {
        "\(name) \(HTTPScope.allCases.filter(scopes.contains).map(\.rawValue).joined(separator: ",")) sha256:\(SHA256.hex(SHA256.hash(token.utf8)))"
    }

    /// A new random token: 32 bytes from the kernel, base64url without padding (43 characters,
    /// safe in a URL's query as ntfy's and Gotify's senders put it).
    public static func newToken() -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeMutableBytes { SystemRandom.fill($0) }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var text: [UInt8] = []
        var bits: UInt32 = 0
        var count = 0
        for byte in bytes {
            bits = bits << 8 | UInt32(byte)
            count += 8
            while count >= 6 {
                count -= 6
                text.append(alphabet[Int((bits >> UInt32(count)) & 63)])
            }
        }
        if count > 0 { text.append(alphabet[Int((bits << UInt32(6 - count)) & 63)]) }
        return "nook_" + String(decoding: text, as: UTF8.self)
    }

    static func hexBytes(_ text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = 0
        while index < digits.count {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
