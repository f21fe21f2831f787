/// The fields of an HTML form body, as Gotify's senders post them: `curl -F` sends
/// `multipart/form-data`, `curl -d`/`--data-urlencode` `application/x-www-form-urlencoded`.
/// Only text fields are read; a file part is refused by its caller as not a field it knows.
enum FormBody {
    struct Failure: Error, Equatable { let message: String }

    /// The fields in order, or why the body is not a form of that type. Nil `contentType`
    /// means neither form type.
    static func fields(contentType: String, body: [UInt8]) -> Result<[(name: String, value: String)], Failure>? {
        let lowered = contentType.lowercased()
        if lowered.hasPrefix("application/x-www-form-urlencoded") { return urlEncoded(body) }
        if lowered.hasPrefix("multipart/form-data") {
            guard let boundary = parameter("boundary", of: contentType), !boundary.isEmpty else {
                return .failure(Failure(message: "multipart/form-data without a boundary parameter"))
            }
            return multipart(body, boundary: boundary)
        }
        return nil
    }

    static func urlEncoded(_ body: [UInt8]) -> Result<[(name: String, value: String)], Failure> {
        var fields: [(name: String, value: String)] = []
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = percentDecoded(parts[0]), let value = percentDecoded(parts.count > 1 ? parts[1] : []) else {
                return .failure(Failure(message: "a form field is not valid percent-encoded UTF-8"))
            }
            fields.append((name, value))
        }
        return .success(fields)
    }

    /// `text` for a URL's query: every byte but unreserved ones (RFC 3986 §2.3) as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.append(byte)
            default:
                output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func percentDecoded(_ bytes: some Collection<UInt8>) -> String? {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var iterator = Array(bytes).makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): output.append(0x20)
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                output.append(high << 4 | low)
            default: output.append(byte)
            }
        }
        return String(validating: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    /// A header parameter (`boundary=…`, `name="…"`), quoted or not.
    static func parameter(_ name: String, of header: String) -> String? {
        for part in header.split(separator: ";").dropFirst() {
            let pieces = part.split(separator: "=", maxSplits: 1)
            guard pieces.count == 2, String(pieces[0]).trimmingCharacters().lowercased() == name else { continue }
            var value = String(pieces[1]).trimmingCharacters()
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }

    static func multipart(_ body: [UInt8], boundary: String) -> Result<[(name: String, value: String)], Failure> {
        let delimiter = Array("--\(boundary)".utf8)
        let lineBreak: [UInt8] = [0x0D, 0x0A]
        var fields: [(name: String, value: String)] = []
        guard var position = find(delimiter, in: body, from: 0) else {
            return .failure(Failure(message: "the multipart body has no part starting with its boundary"))
        }
        while true {
            var cursor = position + delimiter.count
            // `--` after a delimiter ends the body.
            if body[cursor...].starts(with: [0x2D, 0x2D]) { return .success(fields) }
            guard body[cursor...].starts(with: lineBreak) else { break }
            cursor += 2
            // Searched from the line break just read, so a part without headers is found too.
            guard let headersEnd = find(lineBreak + lineBreak, in: body, from: cursor - 2) else { break }
            let headerText = String(decoding: body[cursor..<max(cursor, headersEnd)], as: UTF8.self)
            let contentStart = headersEnd + 4
            guard let next = find(lineBreak + delimiter, in: body, from: contentStart) else { break }
            var name: String?
            var isFile = false
            for line in headerText.split(separator: "\r\n") where line.lowercased().hasPrefix("content-disposition:") {
                name = parameter("name", of: String(line))
                isFile = parameter("filename", of: String(line)) != nil
            }
            guard let fieldName = name else { return .failure(Failure(message: "a multipart part has no name in its Content-Disposition")) }
            if isFile { return .failure(Failure(message: "the part '\(fieldName)' is a file; only text fields are read")) }
            guard let value = String(validating: body[contentStart..<next], as: UTF8.self) else {
                return .failure(Failure(message: "the field '\(fieldName)' is not UTF-8 text"))
            }
            fields.append((fieldName, value))
            position = next + 2
        }
        return .failure(Failure(message: "the multipart body ends before its closing boundary"))
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == needle[0], haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
